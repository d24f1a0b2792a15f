// Memory under a flood of large bodies (docs/gateway.md, "What a request may cost"): a real `tollgate serve` on its
// embedded datastores, as `npm start` runs it, with an LLM proxy in front of a loopback provider. The process's peak
// RSS (VmHWM) is reset before each flood (/proc/PID/clear_refs) and read after it, so each bound is about what the
// flood itself cost:
//   - strangers (a made-up key) sending 8 parallel 30 MB bodies to each proxy kind: refused from the headers, no body
//     read or parsed; the peak grows by less than STRANGER_BOUND_MB (before the gate it grew by about 30 MB with
//     half as many);
//   - a valid key sending the same: the bodies the process holds at once never exceed the body budget (set to
//     BUDGET_MB here); what does not fit is refused with 503 and Retry-After; the peak grows by less than
//     KEY_BOUND_MB (the budget's bytes, their text, the parsed prompt and the copy sent upstream).
// After each flood the proxy still answers a normal completion.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
// @ts-expect-error: the bench helpers are plain JavaScript without declarations
import { peakRssMb, procStatFields, start, startEnv, startNodeArgs, tollgateBin } from '../bench/common.mjs';
import { ApiClient } from '@tollgate/contract';
import { must } from '@tollgate/testkit/harness.ts';
import { startFakeProvider, type FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';

const BUDGET_MB = 32;
const STRANGER_BOUND_MB = 16;
const KEY_BOUND_MB = 5 * BUDGET_MB + 48;
const BODY_MB = 30;
const PARALLEL = 8;

const linux = process.platform === 'linux';
let fake: FakeProvider;
let mcpUp: McpUpstream;
let mcpPath: string;
let tg: { child: ChildProcess; api: string; gateway: string; pat: string };
let dataDir: string;
let path: string;
let key: string;

before(async () => {
  if (!linux) return;
  fake = await startFakeProvider('openai');
  mcpUp = await startMcpUpstream();
  dataDir = mkdtempSync(join(tmpdir(), 'tollgate-flood-'));
  tg = await start('tollgate', '0-1', [...startNodeArgs, tollgateBin, 'serve'], {
    ...startEnv, TOLLGATE_DATA_DIR: dataDir, TOLLGATE_MASTER_KEY: '', DATABASE_URL: '', REDIS_URL: '',
    TOLLGATE_API_PORT: '0', TOLLGATE_GATEWAY_PORT: '0', TOLLGATE_GATEWAY_ADMIN_PORT: '0',
    TOLLGATE_PROVIDER_BASE_URL_OPENAI: fake.url, TOLLGATE_UPSTREAM_ALLOW_CIDRS: '127.0.0.0/8,::1/128', TOLLGATE_UPSTREAM_ALLOW_HTTP: 'true',
    TOLLGATE_GATEWAY_BODY_BUDGET_MB: String(BUDGET_MB), TOLLGATE_PGLITE_NICE: '10',
  }, {
    pat: /(svc_pat_[A-Za-z0-9_-]+)/, api: /"msg":"management API listening".*?"url":"([^"]+)"/, gateway: /"msg":"gateway listening".*?"url":"([^"]+)"/,
  }, { timeoutMs: 90_000 });
  const client = new ApiClient({ endpoint: tg.api, token: tg.pat, userAgent: 'tollgate-tests' });
  const llm = must(await client.call('POST /api/llm', { body: { name: 'flood', provider: 'openai', providerKey: fake.providerKey } }));
  ({ key: { key } } = must(await client.call('POST /api/keys', { body: { name: 'flood', llmPermissions: [{ id: llm.id, models: ['*'] }] } })));
  path = `/${llm.id}/v1/chat/completions`;
  const { server } = must(await client.call('POST /api/mcp', { body: { name: 'flood', url: mcpUp.url } }));
  mcpPath = `/${server.id}/`;
});

after(async () => {
  tg?.child.kill('SIGKILL');
  await fake?.close();
  await mcpUp?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The nice value of each thread of a process (field 19 of /proc/PID/task/TID/stat). */
function threadNices(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => Number(procStatFields(`/proc/${pid}/task/${tid}/stat`)[16]));
}

test('TOLLGATE_PGLITE_NICE=10: the embedded database\'s thread runs at nice 10, the event loop and the rest at the process\'s priority', { skip: !linux && 'reads /proc' }, () => {
  const nices = threadNices(tg.child.pid!);
  assert.deepEqual(nices.filter((n) => n !== 0), [10], `nice values of the threads: ${nices.join(',')}`);
});

/** A chat completion whose one message is `mb` megabytes of text. */
function bigBody(mb: number): Buffer {
  const head = '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"';
  const tail = '"}]}';
  return Buffer.concat([Buffer.from(head), Buffer.alloc(mb * 1024 * 1024, 'a'), Buffer.from(tail)]);
}

/** Sends the body and resolves with the status, or with the error code when the gateway cut the connection. */
function send(body: Buffer, token: string, to = path): Promise<number | string> {
  const u = new URL(tg.gateway + to);
  return new Promise((resolve) => {
    const req = request({
      host: u.hostname, port: u.port, path: u.pathname, method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': body.length },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
      res.on('error', () => resolve(res.statusCode!));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    req.end(body);
  });
}

async function completionWorks(): Promise<void> {
  const r = await fetch(tg.gateway + path, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(r.status, 200, await r.text());
  await r.arrayBuffer().catch(() => undefined);
}

/** The process's peak RSS growth (MB) while `flood` runs. */
async function peakGrowth(flood: () => Promise<unknown>): Promise<number> {
  const pid = tg.child.pid!;
  // A full GC is not ours to force in the child; resetting the high-water mark to the current RSS is.
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const base = peakRssMb(pid) as number;
  await flood();
  return (peakRssMb(pid) as number) - base;
}

/**
 * The smallest peak growth of up to `attempts` floods, stopping at the first under `bound`. A body the gateway
 * buffers shows in every attempt (16 × 30 MB); what else the process happens to allocate while a loaded CI machine
 * runs the flood (a heap growth step, a checkpoint) does not repeat, so a retry tells the two apart without loosening
 * the bound.
 */
async function leastPeakGrowth(flood: () => Promise<unknown>, bound: number, attempts = 3): Promise<number[]> {
  const seen: number[] = [];
  while (seen.length < attempts) {
    seen.push(await peakGrowth(flood));
    if (seen.at(-1)! < bound) break;
  }
  return seen;
}

test('8 parallel 30 MB bodies with a made-up key to an LLM proxy and 8 to an MCP proxy: refused from the headers, no body buffered, the proxies keep serving', { skip: !linux && 'reads /proc' }, async () => {
  await completionWorks();
  const body = bigBody(BODY_MB);
  const received = fake.received.length;
  const mcpRequests = mcpUp.requests.length;
  let results: Array<number | string> = [];
  const growths = await leastPeakGrowth(async () => {
    results = await Promise.all(Array.from({ length: 2 * PARALLEL }, (_, i) => send(body, 'svc_made_up_key_0123456789', i % 2 ? mcpPath : path)));
  }, STRANGER_BOUND_MB);
  const growth = Math.min(...growths);
  console.log(`# stranger flood: peak RSS grew ${growths.map((g) => g.toFixed(1)).join(', then ')} MB (bound ${STRANGER_BOUND_MB} MB); answers ${results.join(',')}`);
  // The answer is a 401; a client still writing when the gateway closes the connection may see the reset instead.
  for (const r of results) assert.ok(r === 401 || r === 'ECONNRESET' || r === 'EPIPE', `unexpected ${r}`);
  assert.ok(results.includes(401), 'at least one client read its 401');
  assert.ok(growth < STRANGER_BOUND_MB, `peak RSS grew by ${growth.toFixed(1)} MB`);
  assert.equal(fake.received.length, received, 'nothing reached the provider');
  assert.equal(mcpUp.requests.length, mcpRequests, 'nothing reached the MCP server');
  await completionWorks();
});

test('8 parallel 30 MB bodies with a valid key: what exceeds the body budget is a 503 with Retry-After, memory stays bounded', { skip: !linux && 'reads /proc' }, async () => {
  const body = bigBody(BODY_MB);
  let results: Array<number | string> = [];
  const growth = await peakGrowth(async () => {
    results = await Promise.all(Array.from({ length: PARALLEL }, () => send(body, key)));
  });
  console.log(`# keyed flood: peak RSS grew ${growth.toFixed(1)} MB (bound ${KEY_BOUND_MB} MB, body budget ${BUDGET_MB} MB); answers ${results.join(',')}`);
  // One 30 MB body fits the 32 MB budget at a time: the others are refused while it is held.
  assert.ok(results.filter((r) => r === 200).length >= 1, 'at least one was served');
  assert.ok(results.filter((r) => r !== 200).length >= 1, 'the budget refused some');
  for (const r of results) assert.ok(r === 200 || r === 503 || r === 'ECONNRESET' || r === 'EPIPE', `unexpected ${r}`);
  assert.ok(growth < KEY_BOUND_MB, `peak RSS grew by ${growth.toFixed(1)} MB`);
  await completionWorks();
});

test('a body over the owner\'s request cap is 413 without being read; deeply nested JSON is 400', { skip: !linux && 'reads /proc' }, async () => {
  assert.equal(await send(bigBody(33), key).then((r) => (r === 'ECONNRESET' || r === 'EPIPE' ? 413 : r)), 413);
  const deep = Buffer.from(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"x"}],"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
  const r = await fetch(tg.gateway + path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: deep });
  assert.equal(r.status, 400);
  assert.match(((await r.json()) as { error: string }).error, /nested deeper than 64 levels/);
  await completionWorks();
});
