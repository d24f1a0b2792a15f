// The loopback admin endpoint (docs/admin-cli.md#the-admin-endpoint). Embedded PGlite belongs to one process, so
// while `tollgate serve` runs on a data dir the admin CLI hands its command to that server instead of opening the
// database a second time.
//
// Server side: listens on 127.0.0.1, port 0; writes `admin-endpoint.secret` (random, 0600) and then
// `admin-endpoint.json` ({port, pid}, 0600) into the data dir; accepts only `POST /command` with
// `Authorization: Bearer <secret>`; removes both files on stop. Reading the secret needs the data dir's file
// permissions, which is exactly who may open the database directly anyway. Client side: sendAdminCommand.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { z } from 'zod';
import { issueMessage } from '@tollgate/contract';
import { AdminCommandError, adminCommandSchema, runAdminCommand, type AdminCommand } from '../identity/admin-commands.ts';
import type { Services } from '../services.ts';
import { processAlive } from './data-dir-lock.ts';

export const ENDPOINT_FILE = 'admin-endpoint.json';
export const SECRET_FILE = 'admin-endpoint.secret';
const MAX_BODY = 64 * 1024;

const endpointFileSchema = z.object({ port: z.number().int().min(1).max(65535), pid: z.number().int().positive() });
type EndpointFile = z.infer<typeof endpointFileSchema>;

const digest = (s: string) => createHash('sha256').update(s).digest();

function send(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) return undefined;
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseCommand(text: string): { cmd: AdminCommand } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { error: 'invalid JSON' };
  }
  const r = adminCommandSchema.safeParse(raw);
  return r.success ? { cmd: r.data } : { error: issueMessage(r.error.issues) };
}

function handler(s: Services, secretDigest: Buffer) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Browsers always send Origin on POST; nothing legitimate here is a browser (DNS-rebinding defence in depth).
    if (req.method !== 'POST' || req.url !== '/command' || req.headers.origin !== undefined) {
      req.resume();
      return send(res, 404, { error: 'not found' });
    }
    const given = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!timingSafeEqual(digest(given), secretDigest)) {
      req.resume();
      return send(res, 401, { error: 'bad admin endpoint secret' });
    }
    const text = await readBody(req);
    if (text === undefined) return send(res, 413, { error: 'command too large' });
    const parsed = parseCommand(text);
    if ('error' in parsed) return send(res, 400, { error: parsed.error });
    try {
      send(res, 200, { output: await runAdminCommand(s, parsed.cmd) });
    } catch (err) {
      if (err instanceof AdminCommandError) return send(res, 422, { error: err.message });
      s.log.error('admin command failed', { err, op: parsed.cmd.op });
      send(res, 500, { error: 'the server failed to run the command; see its log' });
    }
  };
}

/** Writes a file with mode 0600 atomically (tmp + rename), so a reader never sees half of it or a wider mode. */
function writePrivate(path: string, content: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600, flag: 'w' });
  renameSync(tmp, path);
}

function removeIfOurs(dataDir: string): void {
  try {
    const current = endpointFileSchema.parse(JSON.parse(readFileSync(join(dataDir, ENDPOINT_FILE), 'utf8')));
    if (current.pid !== process.pid) return; // another server took the data dir over; leave its files alone
  } catch { /* missing or unreadable: remove what is left */ }
  for (const f of [ENDPOINT_FILE, SECRET_FILE]) {
    try { unlinkSync(join(dataDir, f)); } catch { /* already gone */ }
  }
}

export async function startAdminEndpoint(s: Services): Promise<() => Promise<void>> {
  const dataDir = s.config.dataDir;
  const secret = randomBytes(32).toString('base64url');
  const server = createServer(handler(s, digest(secret)));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  // Secret first: a client that finds the endpoint file can always read the matching secret.
  writePrivate(join(dataDir, SECRET_FILE), secret + '\n');
  writePrivate(join(dataDir, ENDPOINT_FILE), JSON.stringify({ port, pid: process.pid } satisfies EndpointFile) + '\n');
  s.log.debug('admin endpoint listening', { port });
  return async () => {
    removeIfOurs(dataDir);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
}

// ---- client side (the admin CLI) ----

export type EndpointResult = { kind: 'no-server' } | { kind: 'done'; output: string[] };

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function readEndpoint(dataDir: string): EndpointFile | undefined {
  let text: string;
  try {
    text = readFileSync(join(dataDir, ENDPOINT_FILE), 'utf8');
  } catch {
    return undefined;
  }
  const r = endpointFileSchema.safeParse(parseJsonOrUndefined(text));
  if (!r.success) throw new AdminCommandError(`${join(dataDir, ENDPOINT_FILE)} is corrupt; remove it if no server runs on this data dir`);
  return r.data;
}

function connectionRefused(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown } }).cause;
  return cause?.code === 'ECONNREFUSED';
}

const responseSchema = z.union([z.object({ output: z.array(z.string()) }), z.object({ error: z.string() })]);

/**
 * Sends the command to the server running on `dataDir`, if any. `no-server` when no endpoint file exists or it is
 * left over from a server that is gone (then the caller may open the data dir itself).
 */
export async function sendAdminCommand(dataDir: string, cmd: AdminCommand): Promise<EndpointResult> {
  const ep = readEndpoint(dataDir);
  if (!ep) return { kind: 'no-server' };
  let secret: string;
  try {
    secret = readFileSync(join(dataDir, SECRET_FILE), 'utf8').trim();
  } catch {
    throw new AdminCommandError(`cannot read ${join(dataDir, SECRET_FILE)} (a server seems to run on this data dir; run the CLI as the same user)`);
  }
  let res: Response;
  try {
    res = await fetch(`http://127.0.0.1:${ep.port}/command`, {
      method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify(cmd),
      signal: AbortSignal.timeout(60_000),
    });
  } catch (err) {
    if (connectionRefused(err) && !processAlive(ep.pid)) return { kind: 'no-server' }; // stale files of a crashed server
    throw new AdminCommandError(`the server (pid ${ep.pid}) on this data dir did not answer on its admin endpoint (port ${ep.port})`);
  }
  const body = responseSchema.safeParse(await res.json().catch(() => undefined));
  if (!body.success) throw new AdminCommandError(`unexpected answer from the admin endpoint (HTTP ${res.status})`);
  if ('error' in body.data) throw new AdminCommandError(body.data.error);
  return { kind: 'done', output: body.data.output };
}
