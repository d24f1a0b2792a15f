// PostgreSQL stopped and started again under a running Tollgate (docs/faults.md, "PostgreSQL"): a PostgreSQL
// cluster of the test's own (pg_ctl stop -m fast, then -m immediate, like a crash), an API and gateway in one
// process on it. While it is down the API answers every request 503 with the spec's message; the gateway keeps
// serving MCP and LLM traffic from the configuration it holds, and the audit events, usage rows, budget charges and
// conversation logs of that traffic are written once the database is back: all of them, once each.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiClient, ApiResult } from '@tollgate/contract';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { must, startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { startFakeProvider, type FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { rawLlm } from '@tollgate/testkit/llm-kit.ts';
import { INIT, createKey, createProxy, rawPost } from '@tollgate/testkit/mcp-kit.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { PrivatePostgres, postgresMissing } from './datastores.ts';

const skip = postgresMissing ?? false;
const UNAVAILABLE = { status: 503, error: 'Service unavailable: the datastore is not reachable', errorField: true };

let pgsql: PrivatePostgres;
let t: TestApp;
let user: TestUser;
let api: ApiClient;
let up: McpUpstream;
let fake: FakeProvider;

before(async () => {
  if (skip) return;
  pgsql = await PrivatePostgres.start();
  fake = await startFakeProvider('openai');
  up = await startMcpUpstream({ json: true });
  // In-process state (no Redis): this test is about the database alone.
  t = await startTestApp({ env: { DATABASE_URL: pgsql.url, REDIS_URL: '', TOLLGATE_PROVIDER_BASE_URL_OPENAI: fake.url, TOLLGATE_CONFIG_POLL_MS: '200' } });
  user = await t.createUser();
  api = t.client(user.pat);
});

after(async () => {
  if (skip) return;
  await t?.close();
  await up?.close();
  await fake?.close();
  await pgsql?.close();
});

/** A call's outcome as the 503 of an outage is compared: the status, the message and whether it was the {error} field. */
const outcome = (r: ApiResult<unknown>) => (r.ok ? { status: r.status } : { status: r.error.status, error: r.error.message, errorField: r.error.body?.errorField });
const answering = async () => (await api.call('GET /api/profile')).ok;

interface Counts { events: number; allows: number; usage: number; spent: number; logs: number }

async function counts(mcpId: string, llmId: string): Promise<Counts> {
  const db = t.app.services.db;
  const [ev] = await db.query<{ events: number; allows: number }>(
    `SELECT count(*)::int AS events, count(*) FILTER (WHERE event_type = 'allow')::int AS allows FROM audit_events WHERE mcp_uuid = $1 OR llm_uuid = $2`, [mcpId, llmId]);
  const [u] = await db.query<{ usage: number }>('SELECT coalesce(sum(requests), 0)::int AS usage FROM llm_usage_daily WHERE llm_id = $1', [llmId]);
  const [w] = await db.query<{ spent: number }>(`SELECT coalesce(sum(spent_micro_cents), 0)::bigint AS spent FROM llm_spend_windows WHERE llm_id = $1 AND scope = 'proxy'`, [llmId]);
  const [l] = await db.query<{ logs: number }>('SELECT count(*)::int AS logs FROM llm_conversation_logs WHERE llm_id = $1', [llmId]);
  return { events: ev!.events, allows: ev!.allows, usage: u!.usage, spent: Number(w!.spent), logs: l!.logs };
}

test('with PostgreSQL down the API answers 503 and the gateway keeps serving; what it did is written when the database returns', { skip }, async () => {
  const mcp = await createProxy(t, user, up.url);
  const mcpKey = await createKey(t, mcp);
  const { id: llmId } = must(await api.call('POST /api/llm', { body: { name: 'llm', provider: 'openai', providerKey: fake.providerKey, logConversations: true, budget: { period: 'monthly', capUsd: 100, hardBlock: true } } }));
  const k = must(await api.call('POST /api/keys', { body: { name: 'llm', llmPermissions: [{ id: llmId, models: ['*'] }] } }));
  const llmAuth = { authorization: `Bearer ${k.key.key}` };
  const duringOutage: Array<[string, () => Promise<ApiResult<unknown>>]> = [
    ['GET /api/profile', () => api.call('GET /api/profile')],
    ['GET /api/mcp', () => api.call('GET /api/mcp')],
    ['POST /api/keys', () => api.call('POST /api/keys', { body: { name: 'x' } })],
    ['GET /api/llm/:id/usage', () => api.call('GET /api/llm/:id/usage', { params: { id: llmId }, query: { months: 1 } })],
    ['GET /api/health', () => api.call('GET /api/health')],
  ];
  const mcpCall = (n: number) => rawPost(mcp.pathUrl, { jsonrpc: '2.0', id: n, method: 'initialize', params: INIT.params }, { authorization: `Bearer ${mcpKey}` });
  const llmCall = () => rawLlm(`${t.gateway}/${llmId}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, llmAuth);

  for (const mode of ['fast', 'immediate'] as const) {
    // The budget window is in use (its hot copy exists) before the outage.
    assert.equal((await mcpCall(1)).status, 200);
    assert.equal((await llmCall()).status, 200);
    await t.flush();
    const before = await counts(mcp.id, llmId);

    await pgsql.stop(mode);
    for (const [route, call] of duringOutage) {
      assert.deepEqual(outcome(await call()), UNAVAILABLE, `${route} with the database ${mode}-stopped`);
    }
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push((await mcpCall(10 + i)).status, (await llmCall()).status);
    }
    assert.deepEqual(statuses, Array(10).fill(200), `the gateway serves from its configuration (database ${mode}-stopped)`);
    assert.equal((await rawPost(mcp.pathUrl, INIT, { authorization: 'Bearer svc_not_a_key' })).status, 401, 'and still refuses unknown keys');
    // The writers fail and keep everything for their next attempt (every 2 s); the gateway does not wait for them.
    await sleep(700);

    await pgsql.start();
    await eventually(answering, { what: 'the API answering again' });
    const expected: Counts = { events: before.events + 11, allows: before.allows + 10, usage: before.usage + 5, spent: 0, logs: before.logs + 5 };
    const after = await eventually(async () => {
      const c = await counts(mcp.id, llmId);
      return c.events >= expected.events && c.usage >= expected.usage && c.logs >= expected.logs ? c : undefined;
    }, { what: 'the backlog written', timeoutMs: 15_000 });
    await t.flush();
    const settled = await counts(mcp.id, llmId);
    assert.deepEqual({ ...settled, spent: 0 }, expected, `every event, usage row and log of the ${mode} outage written once`);
    assert.deepEqual(settled, after, 'and nothing more arrives later');
    // The budget's durable copy has the outage's charges too: 6 requests since `before`, each with the same cost.
    const perRequest = (before.spent) / before.usage;
    assert.equal(settled.spent, before.spent + 5 * perRequest, 'the durable budget window counts each charge once');
  }

  // The configuration flows again: a proxy created now serves at once.
  const next = await createProxy(t, user, up.url);
  assert.equal((await rawPost(next.pathUrl, INIT, { authorization: `Bearer ${await createKey(t, next)}` })).status, 200);
  must(await api.call('GET /api/logs', { query: { limit: 1, event_type: 'allow' } }));
});

test('a hard budget whose window cannot be read from either store refuses with 503 (no spend is guessed)', { skip }, async () => {
  const { id: llmId } = must(await api.call('POST /api/llm', { body: { name: 'fresh', provider: 'openai', providerKey: fake.providerKey, budget: { period: 'daily', capUsd: 1, hardBlock: true } } }));
  const key = must(await api.call('POST /api/keys', { body: { name: 'fresh', llmPermissions: [{ id: llmId, models: ['*'] }] } })).key.key;
  await pgsql.stop('fast');
  try {
    // Its window was never used, so the hot copy does not exist and its rebuild needs PostgreSQL.
    const r = await rawLlm(`${t.gateway}/${llmId}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${key}` });
    assert.deepEqual([r.status, r.json], [UNAVAILABLE.status, { error: UNAVAILABLE.error }]);
  } finally {
    await pgsql.start();
  }
  await eventually(answering, { what: 'the API answering again' });
  const ok = await rawLlm(`${t.gateway}/${llmId}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${key}` });
  assert.equal(ok.status, 200, ok.text);
});
