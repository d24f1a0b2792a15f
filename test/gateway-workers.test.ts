// `tollgate serve --role gateway --workers 2` (docs/scaling.md): two worker processes on one port enforce one
// rate limit and one budget together, with requests spread over both (each request on a new connection, which
// node:cluster hands to the workers in turn); each worker's stop line names its pid and how many responses it sent,
// which proves both served. On PostgreSQL and Redis: DATABASE_URL and REDIS_URL when set (CI), else a private
// PostgreSQL and redis-server of the test's own (test/faults/datastores.ts).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { startFakeProvider, type FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { must, newIsolation, startTestApp, type TestApp } from '@tollgate/testkit/harness.ts';
import { createKey, createProxy, INIT, putRules } from '@tollgate/testkit/mcp-kit.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { scrapeMetrics } from '@tollgate/testkit/metrics-scrape.ts';
import { postgresMissing, PrivatePostgres, PrivateRedis, redisMissing } from './faults/datastores.ts';

const BIN = fileURLToPath(new URL('../server/bin/tollgate.mjs', import.meta.url));
const shared = !!process.env.DATABASE_URL && !!process.env.REDIS_URL;
const skip = shared ? false : (postgresMissing ?? redisMissing ?? false);

let pg: PrivatePostgres | undefined;
let redis: PrivateRedis | undefined;
let t: TestApp;
let up: McpUpstream;
let fake: FakeProvider;
let child: ChildProcess;
let gateway = '';
let admin = '';
let stderr = '';
const iso = newIsolation();

/** One POST on a connection of its own (`agent: false`), so that node:cluster may hand it to either worker. */
function post(url: string, body: unknown, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

function getJson(url: string): Promise<{ configVersion: number }> {
  return new Promise((resolve, reject) => {
    request(url, { agent: false }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => { text += d.toString(); });
      res.on('end', () => resolve(JSON.parse(text) as { configVersion: number }));
    }).on('error', reject).end();
  });
}

/** Both workers serve the config the API has now (each /status is a new connection: the workers answer in turn). */
async function workersCaughtUp(): Promise<void> {
  const version = t.app.gateway!.store.version;
  await eventually(async () => {
    const seen = await Promise.all(Array.from({ length: 4 }, () => getJson(`${admin}/status`)));
    return seen.every((s) => s.configVersion >= version);
  }, { what: `both workers at config version ${version}`, timeoutMs: 15_000 });
}

before(async () => {
  if (skip) return;
  if (!shared) [pg, redis] = await Promise.all([PrivatePostgres.start(), PrivateRedis.start()]);
  const datastores = { DATABASE_URL: process.env.DATABASE_URL ?? pg!.url, REDIS_URL: process.env.REDIS_URL ?? redis!.url };
  [up, fake] = await Promise.all([startMcpUpstream(), startFakeProvider('openai')]);
  const env = { ...datastores, TOLLGATE_PROVIDER_BASE_URL_OPENAI: fake.url };
  t = await startTestApp({ isolation: iso, env });
  child = spawn(process.execPath, [BIN, 'serve', '--role', 'gateway', '--workers', '2'], {
    env: {
      ...process.env, ...env,
      TOLLGATE_DB_SCHEMA: iso.schema, TOLLGATE_REDIS_PREFIX: iso.redisPrefix, TOLLGATE_MASTER_KEY: iso.masterKey,
      TOLLGATE_GATEWAY_PORT: '0', TOLLGATE_GATEWAY_ADMIN_PORT: '0', TOLLGATE_CONFIG_POLL_MS: '500',
      TOLLGATE_UPSTREAM_ALLOW_CIDRS: '127.0.0.0/8,::1/128', TOLLGATE_UPSTREAM_ALLOW_HTTP: 'true', TOLLGATE_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  const line = await eventually(() => stderr.split('\n').slice(0, -1).find((l) => l.includes('"msg":"gateway listening"')),
    { what: 'the workers to listen', timeoutMs: 60_000, intervalMs: 100 });
  ({ url: gateway, admin } = JSON.parse(line) as { url: string; admin: string });
});
after(async () => {
  if (skip) return;
  if (child && child.exitCode === null && child.signalCode === null) {
    // SIGTERM: the primary stops its workers (SIGKILL would leave them to notice the lost IPC channel themselves).
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
  await t?.app.services.db.query(`DROP SCHEMA IF EXISTS ${iso.schema} CASCADE`).catch(() => undefined);
  await t?.close();
  await Promise.all([up?.close(), fake?.close(), pg?.close(), redis?.close()]);
});

/** The sum of tollgate_gateway_responses_total over its labels in one scrape of the shared admin port. */
async function responsesInMetrics(): Promise<number> {
  return [...(await scrapeMetrics(admin))].filter(([k]) => k.startsWith('tollgate_gateway_responses_total{')).reduce((sum, [, v]) => sum + v, 0);
}

test('two gateway workers on one port enforce one rate limit and one budget, and both serve', { skip }, async () => {
  const user = await t.createUser();
  const p = await createProxy(t, user, up.url);
  const key = await createKey(t, p);
  await putRules(t, p, [{ rule_type: 'rate_limit', tools: ['*'], name: 'workers', match_key: 'api_key', threshold: 6, timespan: 60 }]);
  const api = t.client(user.pat);
  const { id } = must(await api.call('POST /api/llm', { body: { name: 'workers', provider: 'openai', providerKey: fake.providerKey, budget: { period: 'daily', capUsd: 0.05, hardBlock: true } } }));
  const llmKey = must(await api.call('POST /api/keys', { body: { name: 'workers', llmPermissions: [{ id, models: ['*'] }] } })).key.key;
  await workersCaughtUp();

  const limited = [];
  for (let i = 0; i < 8; i++) limited.push(await post(`${gateway}/${p.id}/`, INIT, { authorization: `Bearer ${key}` }));
  assert.deepEqual(limited, [200, 200, 200, 200, 200, 200, 429, 429], 'six requests in the window, whichever worker takes each');

  // Each answer costs (10 * 15 + 100 * 60) / 1e6 USD = 0.615 cents: the 5-cent cap admits nine at most (spend 4.92
  // cents before the ninth), eight when a request comes while the previous one's reservation is still held (it is
  // charged and released just after its answer). Two windows, one per worker, would admit eighteen.
  fake.override = async (r, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'c', object: 'chat.completion', model: r.json?.model, choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 100 } }));
    return true;
  };
  const body = { model: 'o1', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };
  const budgeted = [];
  for (let i = 0; i < 12; i++) budgeted.push(await post(`${gateway}/${id}/v1/chat/completions`, body, { authorization: `Bearer ${llmKey}` }));
  const admitted = budgeted.filter((s) => s === 200).length;
  assert.ok(budgeted.every((s) => s === 200 || s === 402) && budgeted.slice(-2).every((s) => s === 402), budgeted.join());
  assert.ok(admitted === 8 || admitted === 9, `one budget window for both workers: ${admitted} admitted`);
  await eventually(async () => must(await api.call('GET /api/llm/:id/usage/daily', { params: { id }, query: { days: 1 } })).window?.spentCents === Math.round(admitted * 0.615),
    { what: `the window to hold the ${admitted} charges` });

  // The shared admin port hands each scrape to one worker; every answer holds both workers' responses.
  for (let i = 0; i < 4; i++) assert.equal(await responsesInMetrics(), 20, 'GET /metrics sums the workers\' counters');

  child.kill('SIGTERM');
  const code = await new Promise((r) => child.once('exit', r));
  assert.equal(code, 0, stderr);
  const stops = stderr.split('\n').filter((l) => l.includes('"msg":"gateway worker stopping"')).map((l) => JSON.parse(l) as { pid: number; responses: number });
  assert.equal(new Set(stops.map((s) => s.pid)).size, 2, stderr);
  const proxied = stops.map((s) => s.responses);
  assert.ok(proxied.every((n) => n >= 5), `each worker answered its share of the 20 requests: ${proxied.join(', ')}`);
  assert.equal(proxied[0]! + proxied[1]!, 20);
});
