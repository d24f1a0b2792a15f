// Redis stopped in the middle of traffic and started again (docs/faults.md, "Redis"): a Tollgate (API and gateway in
// one process, plus a second gateway process for the config fan-out) on a PostgreSQL and a redis-server of its own,
// which the test kills, shuts down with a save, and restarts. Per feature:
//   - rate limits and bans fail open while Redis is down, and hold again when it returns (a ban kept by a saved
//     Redis still bans; counters of an emptied Redis start again);
//   - the static cache is a miss while Redis is down (the upstream answers), and caches again afterwards;
//   - config changes reach the other gateway by its version poll while pub/sub is gone;
//   - budgets fall back to the durable copy in PostgreSQL (a hard cap still refuses), and afterwards the window holds
//     exactly what the answered requests cost: nothing double-charged or forgotten, whether Redis came back empty or
//     with its data, including charges that land while the window is rebuilt.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startChildGateway, type ChildGateway } from '@tollgate/testkit/child-gateway.ts';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { must, newIsolation, startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { startFakeProvider, type FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { rawLlm } from '@tollgate/testkit/llm-kit.ts';
import { INIT, createKey, createProxy, putRules, rawPost, rawSession } from '@tollgate/testkit/mcp-kit.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { windowAt } from '../../server/src/budgets/windows.ts';
import { PrivatePostgres, PrivateRedis, postgresMissing, redisMissing } from './datastores.ts';

const skip = redisMissing ?? postgresMissing ?? false;

let redis: PrivateRedis;
let pgsql: PrivatePostgres;
let t: TestApp;
let user: TestUser;
let up: McpUpstream;
let fake: FakeProvider;
let gw2: ChildGateway | undefined;
const iso = newIsolation();

before(async () => {
  if (skip) return;
  [redis, pgsql] = await Promise.all([PrivateRedis.start(), PrivatePostgres.start()]);
  fake = await startFakeProvider('openai');
  up = await startMcpUpstream({ json: true });
  const env = { DATABASE_URL: pgsql.url, REDIS_URL: redis.url, TOLLGATE_PROVIDER_BASE_URL_OPENAI: fake.url };
  t = await startTestApp({ isolation: iso, env });
  user = await t.createUser();
  gw2 = await startChildGateway(iso, { ...env, TOLLGATE_CONFIG_POLL_MS: '1000' });
});

after(async () => {
  if (skip) return;
  gw2?.child.kill('SIGKILL');
  await t?.close();
  await up?.close();
  await fake?.close();
  await redis?.close();
  await pgsql?.close();
});

const health = () => t.client(user.pat).call('GET /api/health');
/** Redis answers the gateway again (its client reconnects with a backoff of up to 2 s). */
const redisBack = () => eventually(async () => { const h = await health(); return h.ok && h.body.overall === 'operational'; }, { what: 'Redis reachable again', timeoutMs: 15_000, intervalMs: 100 });

test('MCP: rate limits and bans fail open and the cache misses while Redis is down; all hold again once it is back', { skip }, async () => {
  const p = await createProxy(t, user, up.url);
  const key = await createKey(t, p);
  await putRules(t, p, [
    { rule_type: 'rate_limit', tools: ['*'], name: 'per-key', match_key: 'api_key', threshold: 6, timespan: 60, ban_after_n_exceeded: 2, ban_timespan: 60 },
    { rule_type: 'static_cache', tools: ['counter'], cache_ttl: 60 },
  ]);
  const sid = await rawSession(p.pathUrl, key); // two counted requests
  let id = 10;
  const call = async (arg: string) => {
    const r = await rawPost(p.pathUrl, { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'counter', arguments: { key: arg } } },
      { authorization: `Bearer ${key}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
    return { status: r.status, text: r.status === 200 ? (r.json.result.content[0].text as string) : (r.json?.error as string) };
  };

  // Redis up: the second identical call is a cache hit; the limit allows 6 requests, the 7th and 8th are refused and
  // the 8th imposes a ban (2 over-threshold requests), the 9th finds the ban.
  const first = await call('a');
  assert.deepEqual(await call('a'), first, 'a cache hit');
  const ranBefore = up.calls.get('counter');
  for (const arg of ['b', 'c']) assert.equal((await call(arg)).status, 200);
  assert.deepEqual([(await call('d')).status, (await call('e')).status, (await call('f')).status], [429, 429, 403]);

  // Redis shut down (it saves its data): bans and limits are not enforced, every call reaches the upstream.
  await redis.shutdownSave();
  assert.equal(must(await health()).overall, 'degraded');
  const during = [];
  for (let i = 0; i < 8; i++) during.push(await call('a'));
  assert.deepEqual(during.map((r) => r.status), Array(8).fill(200), 'fail open: no ban, no limit');
  assert.equal(new Set(during.map((r) => r.text)).size, 8, 'no cache: the upstream answered each call');
  assert.equal(up.calls.get('counter'), ranBefore! + 2 + 8);

  // A config change made meanwhile reaches the other gateway by its version poll (pub/sub is down with Redis).
  const other = await createProxy(t, user, up.url);
  const otherKey = await createKey(t, other);
  await eventually(async () => (await rawPost(`${gw2!.url}/${other.id}/`, INIT, { authorization: `Bearer ${otherKey}` })).status === 200, { what: 'the second gateway serving a proxy created while Redis is down', timeoutMs: 10_000 });

  // Back with its data: the ban imposed before the outage still holds.
  await redis.start();
  await redisBack();
  assert.equal((await call('a')).status, 403, 'the saved ban holds again');

  // Killed (nothing saved) and back empty: bans and counters start afresh, the cache fills again.
  await redis.kill();
  assert.equal((await call('g')).status, 200, 'fail open while it is down');
  await redis.start();
  await redisBack();
  const fresh = [];
  for (let i = 0; i < 8; i++) fresh.push((await call(`h${i % 2}`)).status);
  assert.deepEqual(fresh, [200, 200, 200, 200, 200, 200, 429, 429], 'a fresh window: six allowed, then refused');
});

// Each answer costs (10 × 15 + 100 × 60) / 1e6 USD = 0.615 cents (model o1, pricing 2025-08-01).
const COST_MICRO = 615_000;
const BODY = { model: 'o1', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };

function answerAfter(wait: number | Promise<unknown>) {
  fake.override = async (r, res) => {
    await (typeof wait === 'number' ? sleep(wait) : wait);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'c', object: 'chat.completion', model: r.json?.model, choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 100 } }));
    return true;
  };
}

test('LLM budgets: with Redis down the durable copy decides; afterwards the window holds exactly what the answers cost', { skip }, async () => {
  const api = t.client(user.pat);
  const { id: llmId } = must(await api.call('POST /api/llm', { body: { name: 'spend', provider: 'openai', providerKey: fake.providerKey, budget: { period: 'daily', capUsd: 10, hardBlock: true } } }));
  const { id: smallId } = must(await api.call('POST /api/llm', { body: { name: 'small', provider: 'openai', providerKey: fake.providerKey, budget: { period: 'daily', capUsd: 0.02, hardBlock: true } } }));
  const k = must(await api.call('POST /api/keys', { body: { name: 'spender', llmPermissions: [{ id: llmId, models: ['*'] }, { id: smallId, models: ['*'] }] } }));
  const auth = { authorization: `Bearer ${k.key.key}` };
  const url = `${t.gateway}/${llmId}/v1/chat/completions`;
  let answered = 0;
  const statuses: number[] = [];
  const send = async (to = url) => {
    const r = await rawLlm(to, BODY, auth).catch((err: Error) => ({ status: 0, text: err.message }));
    if (to === url) {
      statuses.push(r.status);
      if (r.status === 200) answered++;
    }
    return r.status;
  };
  const flood = (n: number, everyMs: number) => Promise.all(Array.from({ length: n }, async (_, i) => {
    await sleep(i * everyMs);
    await send();
  }));

  answerAfter(50);
  await flood(5, 0);
  // 1. Redis killed in the middle of traffic: requests keep being answered; it comes back empty.
  const traffic = flood(20, 15);
  await sleep(120);
  await redis.kill();
  await traffic;
  // The hard cap still holds while Redis is down, from the durable copy: 2 cents allow 4 answers of 0.615.
  const capped = [];
  for (let i = 0; i < 6; i++) capped.push(await send(`${t.gateway}/${smallId}/v1/chat/completions`));
  assert.deepEqual(capped, [200, 200, 200, 200, 402, 402], 'the cap is enforced from PostgreSQL');
  await flood(5, 0);
  await redis.start();
  await redisBack();
  await flood(5, 0);

  // 2. Charges that land while the window is rebuilt: requests admitted before Redis loses its data are answered
  // while the rebuild waits on PostgreSQL (the test holds a lock on the durable copy's table).
  let answer!: () => void;
  answerAfter(new Promise<void>((r) => { answer = r; }));
  const atProvider = fake.received.length;
  const inFlight = flood(6, 0);
  await eventually(() => fake.received.length >= atProvider + 6, { what: 'six requests at the provider' });
  const lock = new pg.Client({ connectionString: pgsql.url, options: `-c search_path=${iso.schema}` });
  await lock.connect();
  await lock.query('BEGIN');
  await lock.query('LOCK TABLE llm_spend_windows IN ACCESS EXCLUSIVE MODE');
  await redis.kill();
  await redis.start();
  await redisBack();
  const rebuilding = flood(1, 0); // finds the window missing and starts the rebuild, which waits for the lock
  await sleep(200);
  answer();
  await inFlight; // the six are answered; their charges wait for the rebuild
  await sleep(200);
  await lock.query('COMMIT');
  await lock.end();
  await rebuilding;

  // 3. Redis shut down with a save in the middle of traffic; it comes back with the window as it was before.
  answerAfter(50);
  const more = flood(20, 15);
  await sleep(120);
  await redis.shutdownSave();
  await more;
  await flood(5, 0);
  await redis.start();
  await redisBack();
  await flood(5, 0);

  assert.ok(statuses.every((s) => s === 200), `every request was answered: ${statuses.join()}`);
  await t.flush();
  const expected = answered * COST_MICRO;
  const tag = windowAt('daily', Date.now()).tag;
  const [durable] = await t.app.services.db.query<{ spent_micro_cents: number }>(`SELECT spent_micro_cents FROM llm_spend_windows WHERE llm_id = $1 AND scope = 'proxy' AND window_tag = $2`, [llmId, tag]);
  const [usage] = await t.app.services.db.query<{ requests: number; cost: number }>('SELECT sum(requests)::bigint AS requests, sum(cost_micro_cents)::bigint AS cost FROM llm_usage_daily WHERE llm_id = $1', [llmId]);
  assert.equal(usage!.requests, answered, 'one usage count per answered request');
  assert.equal(usage!.cost, expected, 'usage rows: each answer charged once');
  assert.equal(durable!.spent_micro_cents, expected, 'durable window: each answer charged once');
  const d = must(await api.call('GET /api/llm/:id/usage/daily', { params: { id: llmId }, query: { days: 1 } }));
  assert.equal(d.window?.spentCents, Math.round(expected / 1_000_000));
  const hot = await t.app.services.state.getNumber(`budget:${llmId}:proxy:w:${tag}`);
  assert.equal(hot - 1, expected, 'the hot window in Redis: each answer charged once');
  console.log(`# ${answered} answers across three Redis outages, ${expected / 1e6} cents charged once each in Redis, PostgreSQL and the usage rows`);
  fake.override = undefined;
});

test('a frozen Redis (SIGSTOP: connections open, no answers) is an outage too: requests do not hang on it', { skip }, async () => {
  const p = await createProxy(t, user, up.url);
  const key = await createKey(t, p);
  await putRules(t, p, [
    { rule_type: 'rate_limit', tools: ['*'], name: 'per-key', match_key: 'api_key', threshold: 100, timespan: 60, ban_after_n_exceeded: 2, ban_timespan: 60 },
    { rule_type: 'static_cache', tools: ['counter'], cache_ttl: 60 },
  ]);
  const api = t.client(user.pat);
  const llm = must(await api.call('POST /api/llm', { body: { name: 'frozen', provider: 'openai', providerKey: fake.providerKey, budget: { period: 'daily', capUsd: 1, hardBlock: true } } }));
  const llmKey = must(await api.call('POST /api/keys', { body: { name: 'frozen', llmPermissions: [{ id: llm.id, models: ['*'] }] } })).key.key;
  answerAfter(0);
  const mcp = () => rawPost(p.pathUrl, INIT, { authorization: `Bearer ${key}` });
  const chat = () => rawLlm(`${t.gateway}/${llm.id}/v1/chat/completions`, BODY, { authorization: `Bearer ${llmKey}` });
  assert.equal((await mcp()).status, 200);
  assert.equal((await chat()).status, 200);
  redis.freeze();
  try {
    for (const [what, send] of [['MCP', mcp], ['LLM', chat]] as const) {
      const started = Date.now();
      const r = await Promise.race([send(), sleep(10_000).then(() => ({ status: 'no answer within 10 s' }))]);
      const ms = Date.now() - started;
      assert.equal(r.status, 200, `${what}: ${r.status}`);
      console.log(`# ${what} request answered in ${ms} ms with Redis frozen`);
      assert.ok(ms < 5000, `${what} answered in ${ms} ms`);
    }
  } finally {
    redis.thaw();
  }
  await redisBack();
  assert.equal((await chat()).status, 200);
  fake.override = undefined;
});
