// The admin CLI as a real process (`node server/bin/tollgate.mjs admin ...`): on an idle embedded data dir, on the
// same data dir while `tollgate serve` runs on it (through the loopback admin endpoint), and on PostgreSQL when
// DATABASE_URL is set. Every process started here is stopped by its PID.
import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient, type ApiResult } from '@tollgate/contract';
import { sha256Hex } from '../crypto/tokens.ts';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { must, startTestApp } from '@tollgate/testkit/harness.ts';
import { ENDPOINT_FILE, SECRET_FILE } from './admin-endpoint.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const BIN = join(ROOT, 'server/bin/tollgate.mjs');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PAT = /^svc_pat_[A-Za-z0-9_-]{20,}$/;
const PASSWORD = 'a long enough password';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The parent's environment without any datastore or Tollgate setting, plus `extra`. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('TOLLGATE_') || k === 'DATABASE_URL' || k === 'REDIS_URL') continue;
    env[k] = v;
  }
  return { ...env, TOLLGATE_LOG_LEVEL: 'info', ...extra };
}

function runCli(args: string[], env: NodeJS.ProcessEnv, stdin?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'admin', ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d; });
    child.stderr.on('data', (d: Buffer) => { stderr += d; });
    // A deadline, not a wait: a CLI run that hangs fails the test instead of holding the suite.
    const timer = setTimeout(() => {
      if (child.pid) process.kill(child.pid, 'SIGKILL');
      reject(new Error(`admin ${args.join(' ')} timed out; stderr: ${stderr}`));
    }, 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(stdin ?? '');
  });
}

function lines(s: string): string[] {
  return s.split('\n').filter(Boolean);
}

async function getJson(url: string) {
  const r = await fetch(url);
  return { status: r.status, body: await r.json() as Record<string, unknown> };
}

/** The status a call answered with, success or not. */
function statusOf(r: ApiResult<unknown>): number {
  return r.ok ? r.status : r.error.status;
}

describe('embedded data dir: without a server, then while `tollgate serve` runs on it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-admin-'));
  const env = cleanEnv({ TOLLGATE_DATA_DIR: dir, TOLLGATE_API_PORT: '0', TOLLGATE_GATEWAY_PORT: '0', TOLLGATE_GATEWAY_ADMIN_PORT: '0' });
  const alice = 'alice@example.test';
  const bob = 'bob@example.test';
  let alicePat = '';
  let serve: ChildProcess | undefined;
  let serveStderr = '';
  let serveStdout = '';
  let api = '';
  let gatewayAdmin = '';
  const profileOf = (pat: string) => new ApiClient({ endpoint: api, token: pat }).call('GET /api/profile');

  after(() => {
    if (serve?.pid && serve.exitCode === null) process.kill(serve.pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  test('usage errors exit 2 with the usage text and touch nothing', async () => {
    const cases: string[][] = [
      [], ['user'], ['user', 'delete', '--email', alice], ['token', 'issue'], ['user', 'create', '--name', 'x'],
      ['user', 'create', '--email'], ['user', 'create', '--email', 'not-an-email'], ['user', 'tags', '--email', alice, '--bogus', 'x'],
      ['user', 'create', '--email', alice, '--password', 'short'], ['token', 'issue', '--email', alice, '--email', bob],
      ['user', 'password', '--email', alice], ['user', 'password', '--email', alice, '--password', 'short'],
    ];
    const runs = await Promise.all(cases.map((c) => runCli(c, env)));
    runs.forEach((r, i) => {
      assert.equal(r.code, 2, `${cases[i]!.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^tollgate admin: .+\nusage:/);
    });
    assert.equal(existsSync(join(dir, 'pgdata')), false, 'no database was opened');
  });

  test('user create prints only the new id; a duplicate e-mail fails with exit 1', async () => {
    const r = await runCli(['user', 'create', '--email', alice, '--name', 'Alice', '--password', PASSWORD], env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^[0-9a-f-]{36}\n$/);
    assert.match(r.stdout.trim(), UUID);
    const dup = await runCli(['user', 'create', '--email', alice.toUpperCase()], env);
    assert.equal(dup.code, 1);
    assert.equal(dup.stdout, '');
    assert.match(dup.stderr, /already exists/);
  });

  test('user tags adds and removes tags and prints the result; a quota tag replaces its earlier value', async () => {
    const r = await runCli(['user', 'tags', '--email', alice, '--add', 'private:permissions:mcp:limit:3', '--add', 'team:blue', '--add', 'team:red'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(lines(r.stdout), ['private:permissions:user', 'private:permissions:mcp:limit:3', 'team:blue', 'team:red']);
    const r2 = await runCli(['user', 'tags', '--email', alice, '--remove', 'team:red', '--add=private:permissions:mcp:limit:5'], env);
    assert.equal(r2.code, 0, r2.stderr);
    assert.deepEqual(lines(r2.stdout), ['private:permissions:user', 'team:blue', 'private:permissions:mcp:limit:5']);
  });

  test('bad tags and unknown users fail with exit 1 and a clear message', async () => {
    const bad = await runCli(['user', 'tags', '--email', alice, '--add', 'private:permissions:mcp:limit:many'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /N must be a non-negative integer/);
    const unknown = await runCli(['token', 'issue', '--email', 'nobody@example.test'], env);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stdout, '');
    assert.match(unknown.stderr, /no user with email nobody@example\.test/);
  });

  test('token issue prints only the plaintext PAT', async () => {
    const r = await runCli(['token', 'issue', '--email', alice], env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^svc_pat_\S+\n$/);
    alicePat = r.stdout.trim();
    assert.match(alicePat, PAT);
  });

  test('serve on the same data dir publishes the admin endpoint files with mode 0600 and sees the CLI\'s work', async () => {
    serve = spawn(process.execPath, [BIN, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    serve.stdout!.on('data', (d: Buffer) => { serveStdout += d; });
    serve.stderr!.on('data', (d: Buffer) => { serveStderr += d; });
    await eventually(() => existsSync(join(dir, ENDPOINT_FILE)), { what: 'the admin endpoint file', timeoutMs: 60_000 });
    for (const line of lines(serveStderr)) {
      const rec = JSON.parse(line) as { msg?: string; url?: string; admin?: string };
      if (rec.msg === 'management API listening') api = rec.url!;
      if (rec.msg === 'gateway listening') gatewayAdmin = rec.admin!;
    }
    assert.ok(api && gatewayAdmin, serveStderr);
    assert.equal(serveStdout, '', 'the data dir had users: no bootstrap token printed');
    for (const f of [ENDPOINT_FILE, SECRET_FILE]) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
    const ep = JSON.parse(readFileSync(join(dir, ENDPOINT_FILE), 'utf8')) as { port: number; pid: number };
    assert.equal(ep.pid, serve.pid);
    const profile = must(await profileOf(alicePat));
    assert.deepEqual(profile.tags, ['private:permissions:user', 'team:blue', 'private:permissions:mcp:limit:5']);
    assert.equal(profile.name, 'Alice');
  });

  test('the admin endpoint listens on loopback only and accepts only its secret', async () => {
    const ep = JSON.parse(readFileSync(join(dir, ENDPOINT_FILE), 'utf8')) as { port: number };
    const secret = readFileSync(join(dir, SECRET_FILE), 'utf8').trim();
    const url = `http://127.0.0.1:${ep.port}/command`;
    const body = JSON.stringify({ op: 'token.issue', email: alice });
    const post = (headers: Record<string, string>, b = body) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: b });
    assert.equal((await post({})).status, 401);
    assert.equal((await post({ authorization: `Bearer ${secret}x` })).status, 401);
    assert.equal((await post({ authorization: `Bearer ${secret}`, origin: 'http://evil.example' })).status, 404, 'browsers are refused');
    const bad = await post({ authorization: `Bearer ${secret}` }, JSON.stringify({ op: 'user.delete', email: alice }));
    assert.equal(bad.status, 400);
    assert.equal(statusOf(await profileOf(alicePat)), 200, 'nothing above rotated the PAT');
    const { networkInterfaces } = await import('node:os');
    const external = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal);
    if (external) {
      await assert.rejects(fetch(`http://${external.address}:${ep.port}/command`, { method: 'POST', body, signal: AbortSignal.timeout(3000) }));
    }
  });

  test('while serve runs, the CLI goes through the server: create, tags, token are visible at once', async () => {
    const created = await runCli(['user', 'create', '--email', bob, '--password-stdin'], env, `${PASSWORD}\n`);
    assert.equal(created.code, 0, created.stderr);
    const bobId = created.stdout.trim();
    assert.match(bobId, UUID);
    const dup = await runCli(['user', 'create', '--email', bob], env);
    assert.equal(dup.code, 1);
    assert.match(dup.stderr, /already exists/);

    const issued = await runCli(['token', 'issue', '--email', bob], env);
    assert.equal(issued.code, 0, issued.stderr);
    const bobPat = issued.stdout.trim();
    assert.match(bobPat, PAT);
    assert.equal(must(await profileOf(bobPat)).email, bob);

    const before = (await getJson(`${gatewayAdmin}/status`)).body.configVersion as number;
    const tags = await runCli(['user', 'tags', '--email', bob, '--add', 'private:permissions:apikey:limit:2'], env);
    assert.equal(tags.code, 0, tags.stderr);
    assert.deepEqual(lines(tags.stdout), ['private:permissions:user', 'private:permissions:apikey:limit:2']);
    assert.deepEqual(must(await profileOf(bobPat)).tags, ['private:permissions:user', 'private:permissions:apikey:limit:2']);
    const afterTags = (await getJson(`${gatewayAdmin}/status`)).body.configVersion as number;
    assert.ok(afterTags > before, `the running gateway reloaded (config version ${before} -> ${afterTags})`);

    const rotated = await runCli(['token', 'issue', '--email', bob], env);
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.equal(statusOf(await profileOf(bobPat)), 401, 'the old PAT fails at once');
    assert.equal(statusOf(await profileOf(rotated.stdout.trim())), 200);

    // The password set through the endpoint works for the dashboard sign-in of the running server.
    // eslint-disable-next-line no-restricted-syntax -- the session cookie is read from the Set-Cookie header itself
    const login = await fetch(`${api}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: bob, password: PASSWORD }) });
    assert.equal(login.status, 200);
    assert.equal(((await login.json()) as { user: { id: string } }).user.id, bobId);

    // A password reset through the CLI: the new password works, the old one and the open session do not.
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const session = new ApiClient({ endpoint: api, headers: { cookie } });
    assert.equal(statusOf(await session.call('GET /api/auth/session')), 200);
    const NEW = 'another long enough password';
    const reset = await runCli(['user', 'password', '--email', bob, '--password-stdin'], env, `${NEW}\n`);
    assert.equal(reset.code, 0, reset.stderr);
    assert.equal(reset.stdout, '');
    assert.equal(statusOf(await session.call('GET /api/auth/session')), 401, 'the session ended');
    const signIn = async (password: string) => statusOf(await new ApiClient({ endpoint: api }).call('POST /api/auth/login', { body: { email: bob, password } }));
    assert.equal(await signIn(PASSWORD), 401);
    assert.equal(await signIn(NEW), 200);
    const unknown = await runCli(['user', 'password', '--email', 'nobody@example.com', '--password', NEW], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no user with email nobody@example.com/);
  });

  test('stopping serve removes the endpoint files; the CLI then opens the data dir itself, also past stale files', async () => {
    const ep = JSON.parse(readFileSync(join(dir, ENDPOINT_FILE), 'utf8')) as { port: number; pid: number };
    const exited = new Promise<number | null>((r) => serve!.once('exit', (code) => r(code)));
    process.kill(serve!.pid!, 'SIGTERM');
    assert.equal(await exited, 0, serveStderr);
    assert.equal(existsSync(join(dir, ENDPOINT_FILE)), false);
    assert.equal(existsSync(join(dir, SECRET_FILE)), false);

    const direct = await runCli(['user', 'tags', '--email', bob], env);
    assert.equal(direct.code, 0, direct.stderr);
    assert.deepEqual(lines(direct.stdout), ['private:permissions:user', 'private:permissions:apikey:limit:2']);

    // Files left behind by a server that died without cleaning up (its pid and port are gone) are ignored.
    writeFileSync(join(dir, ENDPOINT_FILE), JSON.stringify(ep), { mode: 0o600 });
    writeFileSync(join(dir, SECRET_FILE), 'stale\n', { mode: 0o600 });
    const past = await runCli(['user', 'tags', '--email', alice], env);
    assert.equal(past.code, 0, past.stderr);
    assert.deepEqual(lines(past.stdout), ['private:permissions:user', 'team:blue', 'private:permissions:mcp:limit:5']);
  });
});

describe('PostgreSQL (DATABASE_URL)', { skip: !process.env.DATABASE_URL && 'DATABASE_URL is not set' }, () => {
  const iso = { schema: `t_cli_${randomBytes(4).toString('hex')}`, redisPrefix: `t_cli_${randomBytes(4).toString('hex')}:`, masterKey: randomBytes(32).toString('base64') };
  const env = cleanEnv({
    DATABASE_URL: process.env.DATABASE_URL ?? '',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    TOLLGATE_DB_SCHEMA: iso.schema,
    TOLLGATE_REDIS_PREFIX: iso.redisPrefix,
    TOLLGATE_MASTER_KEY: iso.masterKey,
    // Would be used only in embedded mode; set so that a bug there cannot write into the working directory.
    TOLLGATE_DATA_DIR: join(tmpdir(), `tollgate-unused-${randomBytes(4).toString('hex')}`),
  });
  let t: Awaited<ReturnType<typeof startTestApp>>;
  before(async () => { t = await startTestApp({ isolation: iso }); });
  after(async () => {
    await t.app.services.db.query(`DROP SCHEMA IF EXISTS ${iso.schema} CASCADE`).catch(() => undefined);
    await t.close();
  });

  test('the CLI works on the database directly and a running gateway picks the changes up', async () => {
    const email = 'carol@example.test';
    const created = await runCli(['user', 'create', '--email', email, '--name', 'Carol'], env);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout.trim(), UUID);
    const dup = await runCli(['user', 'create', '--email', email], env);
    assert.equal(dup.code, 1);
    assert.match(dup.stderr, /already exists/);
    const tags = await runCli(['user', 'tags', '--email', email, '--add', 'private:permissions:mcp:limit:1'], env);
    assert.deepEqual(lines(tags.stdout), ['private:permissions:user', 'private:permissions:mcp:limit:1']);
    const issued = await runCli(['token', 'issue', '--email', email], env);
    assert.equal(issued.code, 0, issued.stderr);
    const pat = issued.stdout.trim();
    assert.match(pat, PAT);

    const profile = must(await t.client(pat).call('GET /api/profile'));
    assert.equal(profile.name, 'Carol');
    assert.deepEqual(profile.tags, ['private:permissions:user', 'private:permissions:mcp:limit:1']);
    // The in-process gateway of the test app learns about the new PAT (Redis notification or version poll).
    await eventually(() => t.app.gateway!.store.current.credentialsByHash.has(sha256Hex(pat)), { what: 'the gateway to load the new PAT', timeoutMs: 10_000 });

    const unknown = await runCli(['token', 'issue', '--email', 'nobody@example.test'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no user with email/);
  });
});
