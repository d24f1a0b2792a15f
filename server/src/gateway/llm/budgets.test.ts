import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Clock } from '../../services.ts';
import { createLlmKey, createLlmProxy, rawLlm, startLlmEnv, type LlmEnv, type LlmProxyUnderTest } from '@tollgate/testkit/llm-kit.ts';

// The fake answers every o1 chat completion with the recorded usage: 1117 prompt tokens (1024 cached) and 46
// completion tokens, i.e. (93 * 15 + 1024 * 7.5 + 46 * 60) / 1e6 USD = 1.1835 cents with pricing 2025-08-01.
const COST_CENTS = 1.1835;
let now = Date.parse('2025-03-14T12:00:00Z');
const clock: Clock = { nowMs: () => now };
let e: LlmEnv;

before(async () => { e = await startLlmEnv({ clock }); });
after(async () => { await e.close(); });

const body = { model: 'o1', messages: [{ role: 'user', content: 'hi' }] };
const bearer = (k: string) => ({ authorization: `Bearer ${k}` });
/**
 * One request, answered and then accounted: the gateway settles a request's budget hold after the client has its
 * answer, so a client that sends the next request at once can still find the previous hold in the window. These
 * tests are about decisions on settled spend, so each call waits for the accounting of the requests in flight.
 */
async function call(p: LlmProxyUnderTest, key: string, b: unknown = body) {
  const r = await rawLlm(`${p.base}/v1/chat/completions`, b, bearer(key));
  await e.t.flush();
  return r;
}

async function daily(p: LlmProxyUnderTest, path = `/api/llm/${p.id}/usage/daily?days=3`) {
  const r = await e.t.request('GET', path, { token: e.user.pat });
  assert.equal(r.status, 200, r.text);
  return r.body;
}

async function events(type: string) {
  await e.t.flush();
  return (await e.t.request('GET', `/api/logs?event_type=${type}&limit=500`, { token: e.user.pat })).body.logs as Array<{ llm_uuid?: string; details: Record<string, unknown> }>;
}

test('hardBlock: 402 once the window spend reaches the cap; the daily window rolls over at UTC midnight', async () => {
  now = Date.parse('2025-03-14T23:58:00Z');
  const p = await createLlmProxy(e, 'openai', { budget: { period: 'daily', capUsd: 0.03, hardBlock: true } });
  const k = await createLlmKey(e, p);
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await call(p, k.key)).status);
  // 0 -> 1.18 -> 2.37 -> 3.55 cents: the fourth request finds 3.55 >= 3 cents
  assert.deepEqual(statuses, [200, 200, 200, 402]);
  const refused = await call(p, k.key);
  assert.deepEqual(refused.json, { error: 'Budget exceeded for this LLM proxy' });
  assert.equal(refused.headers.get('x-tollgate-budget-exceeded'), 'proxy');
  const d = await daily(p);
  assert.deepEqual(d.window, { tag: 'daily:2025-03-14', spentCents: 4, rollsOverAt: Date.parse('2025-03-15T00:00:00Z') / 1000 });
  assert.deepEqual(d.budget, { period: 'daily', capUsd: 0.03, hardBlock: true });
  now = Date.parse('2025-03-15T00:00:01Z');
  assert.equal((await call(p, k.key)).status, 200, 'a new day, a new window');
  assert.equal((await daily(p)).window.tag, 'daily:2025-03-15');
  const blocked = (await events('budget_exceeded')).filter((ev) => ev.llm_uuid === p.id);
  assert.ok(blocked.length >= 2 && blocked.every((ev) => ev.details.blocked === true && ev.details.scope === 'proxy'));
});

test('weekly windows roll over on UTC Monday, monthly on day 1, fixed only on reset', async () => {
  now = Date.parse('2025-03-16T22:00:00Z'); // a Sunday
  const w = await createLlmProxy(e, 'openai', { budget: { period: 'weekly', capUsd: 0.01, hardBlock: true } });
  const m = await createLlmProxy(e, 'openai', { budget: { period: 'monthly', capUsd: 0.01, hardBlock: true } });
  const f = await createLlmProxy(e, 'openai', { budget: { period: 'fixed', capUsd: 0.01, hardBlock: true } });
  const kw = await createLlmKey(e, w);
  const km = await createLlmKey(e, m);
  const kf = await createLlmKey(e, f);
  for (const [p, k] of [[w, kw], [m, km], [f, kf]] as const) {
    assert.equal((await call(p, k.key)).status, 200);
    assert.equal((await call(p, k.key)).status, 402);
  }
  now = Date.parse('2025-03-17T00:00:00Z'); // Monday
  assert.equal((await call(w, kw.key)).status, 200);
  assert.equal((await call(m, km.key)).status, 402);
  now = Date.parse('2025-04-01T00:00:00Z');
  assert.equal((await call(m, km.key)).status, 200);
  now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal((await call(f, kf.key)).status, 402, 'a fixed window never rolls over by itself');
  assert.equal((await daily(f)).window.rollsOverAt, 0);
  const reset = await e.t.request('POST', `/api/llm/${f.id}/budget/reset`, { token: e.user.pat });
  assert.deepEqual([reset.status, reset.body], [200, { reset: true }]);
  assert.equal((await daily(f)).window.spentCents, 0);
  assert.equal((await call(f, kf.key)).status, 200);
});

test('without hardBlock the request passes, flagged by the response header and a budget_exceeded event', async () => {
  now = Date.parse('2025-05-10T10:00:00Z');
  const p = await createLlmProxy(e, 'openai', { budget: { period: 'monthly', capUsd: 0.01, hardBlock: false } });
  const k = await createLlmKey(e, p);
  const first = await call(p, k.key);
  assert.equal(first.headers.get('x-tollgate-budget-exceeded'), null);
  const second = await call(p, k.key);
  assert.equal(second.status, 200);
  assert.equal(second.headers.get('x-tollgate-budget-exceeded'), 'proxy');
  const ev = (await events('budget_exceeded')).find((x) => x.llm_uuid === p.id);
  assert.ok(ev, 'a budget_exceeded event');
  assert.equal(ev.details.blocked, false);
  assert.equal(ev.details.hard_block, false);
});

test('capUsd 0 tracks spend and never blocks', async () => {
  now = Date.parse('2025-05-10T10:00:00Z');
  const p = await createLlmProxy(e, 'openai', { budget: { period: 'daily', capUsd: 0, hardBlock: true } });
  const k = await createLlmKey(e, p);
  for (let i = 0; i < 5; i++) assert.equal((await call(p, k.key)).status, 200);
  assert.equal((await daily(p)).window.spentCents, Math.round(5 * COST_CENTS));
});

test('the stricter of key cap and proxy cap wins; the per-key reset zeroes only that key', async () => {
  now = Date.parse('2025-05-10T10:00:00Z');
  const p = await createLlmProxy(e, 'openai', { budget: { period: 'monthly', capUsd: 100, hardBlock: true } });
  const a = await createLlmKey(e, p);
  const b = await createLlmKey(e, p);
  const put = await e.t.request('PUT', `/api/llm/${p.id}/keys/${a.id}/budget`, { token: e.user.pat, body: { period: 'daily', capUsd: 0.01, hardBlock: true } });
  assert.equal(put.status, 200, put.text);
  assert.equal((await call(p, a.key)).status, 200);
  const refused = await call(p, a.key);
  assert.equal(refused.status, 402);
  assert.deepEqual(refused.json, { error: 'Budget exceeded for this API key' });
  assert.equal(refused.headers.get('x-tollgate-budget-exceeded'), 'key');
  assert.equal((await call(p, b.key)).status, 200, 'the other key only has the (looser) proxy cap');
  const kd = await daily(p, `/api/llm/${p.id}/keys/${a.id}/usage/daily?days=2`);
  assert.equal(kd.credentialId, a.id);
  assert.deepEqual(kd.budget, { period: 'daily', capUsd: 0.01, hardBlock: true });
  assert.equal(kd.window.spentCents, 1);
  const reset = await e.t.request('POST', `/api/llm/${p.id}/keys/${a.id}/budget/reset`, { token: e.user.pat });
  assert.deepEqual([reset.status, reset.body], [200, { reset: true }]);
  assert.equal((await call(p, a.key)).status, 200);
  assert.equal((await daily(p)).window.spentCents, Math.round(3 * COST_CENTS), 'the proxy window kept every charge');
  assert.equal((await e.t.request('POST', `/api/llm/${p.id}/keys/not-a-uuid/budget/reset`, { token: e.user.pat })).status, 404);
});

test('a hard cap under 50 concurrent requests is overshot by no more than one request', async () => {
  now = Date.parse('2025-06-02T10:00:00Z');
  const p = await createLlmProxy(e, 'openai', { budget: { period: 'daily', capUsd: 0.05, hardBlock: true } });
  const k = await createLlmKey(e, p);
  // Each answer costs (10 * 15 + 100 * 60) / 1e6 USD = 0.615 cents; the request allows 100 output tokens, so its
  // reservation (prompt bytes / 4 + 100 output tokens) is never below its cost.
  p.fake.override = async (r, res) => {
    // Not a wait for anything: an upstream that takes 150 ms keeps the 50 requests in flight together (the overlap is what is tested).
    await new Promise((resolve) => setTimeout(resolve, 150));
    const out = JSON.stringify({ id: 'c', object: 'chat.completion', model: r.json?.model, choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 100 } });
    res.writeHead(200, { 'content-type': 'application/json' }).end(out);
    return true;
  };
  try {
    const b = { model: 'o1', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };
    const results = await Promise.all(Array.from({ length: 50 }, () => call(p, k.key, b)));
    const ok = results.filter((r) => r.status === 200).length;
    assert.ok(results.every((r) => r.status === 200 || r.status === 402), results.map((r) => r.status).join());
    assert.ok(ok >= 1 && ok < 50, `admitted ${ok}`);
    const spent = ok * 0.615;
    assert.ok(spent <= 5 + 0.615, `spent ${spent} cents against a 5 cent cap`);
    const d = await daily(p);
    assert.equal(d.window.spentCents, Math.round(spent));
    if (spent >= 5) assert.equal((await call(p, k.key, b)).status, 402);
  } finally {
    p.fake.override = undefined;
  }
});

test('charged spend survives losing the hot state (a Redis flush): the window is rebuilt from PostgreSQL', async () => {
  now = Date.parse('2025-07-01T10:00:00Z');
  const p = await createLlmProxy(e, 'openai', { budget: { period: 'monthly', capUsd: 0.02, hardBlock: true } });
  const k = await createLlmKey(e, p);
  assert.equal((await call(p, k.key)).status, 200);
  assert.equal((await call(p, k.key)).status, 200);
  assert.equal((await call(p, k.key)).status, 402);
  // The durable copy is written by the accounting writer's next flush.
  await e.t.flush();
  const durable = await e.t.app.services.db.query<{ spent_micro_cents: number }>('SELECT spent_micro_cents FROM llm_spend_windows WHERE llm_id = $1', [p.id]);
  assert.equal(Number(durable[0]?.spent_micro_cents), 2 * COST_CENTS * 1_000_000);
  // What FLUSHALL does to this deployment's keys (other tests share the Redis server, so only our prefix goes).
  await e.t.app.services.state.delPrefix('');
  assert.equal((await call(p, k.key)).status, 402, 'the cap still holds after the hot state is gone');
  assert.equal((await daily(p)).window.spentCents, 2);
});

test('usage rows record costCents and pricingVersion; history deletes validate before', async () => {
  now = Date.parse('2025-08-05T10:00:00Z');
  const p = await createLlmProxy(e, 'openai');
  const k = await createLlmKey(e, p);
  await call(p, k.key);
  await e.t.flush();
  const d = await daily(p);
  assert.equal(d.window, null, 'no budget, no window');
  assert.deepEqual(d.rows[0], {
    day: 20250805, credentialId: k.id, model: 'o1', pricingVersion: '2025-08-01', requests: 1, inputTokens: 1117,
    cachedInputTokens: 1024, outputTokens: 46, estimatedRequests: 0, costCents: COST_CENTS,
  });
  const today = d.series.at(-1);
  assert.equal(today.date, '2025-08-05');
  assert.equal(today.costCents, COST_CENTS);
  assert.equal(today.pricingVersion, '2025-08-01');
  const m = await e.t.request('GET', `/api/llm/${p.id}/usage?months=2`, { token: e.user.pat });
  assert.equal(m.status, 200);
  assert.deepEqual(m.body.series.map((s: { month: string }) => s.month), ['2025-07', '2025-08']);
  assert.equal(m.body.byKey[0].credentialId, k.id);
  assert.equal(m.body.byKey[0].requests, 1);
  for (const bad of ['2025-08-01', '2025081', 'abc', '20251301']) {
    const r = await e.t.request('DELETE', `/api/llm/${p.id}/usage/history?before=${bad}`, { token: e.user.pat });
    assert.deepEqual([r.status, r.body], [400, { error: 'before must be a YYYYMMDD integer' }]);
  }
  assert.equal((await e.t.request('DELETE', `/api/llm/${p.id}/usage/history`, { token: e.user.pat })).status, 400);
  const kept = await e.t.request('DELETE', `/api/llm/${p.id}/usage/history?before=20250805`, { token: e.user.pat });
  assert.deepEqual(kept.body, { deleted: 0 });
  const gone = await e.t.request('DELETE', `/api/llm/${p.id}/usage/history?all=true`, { token: e.user.pat });
  assert.deepEqual(gone.body, { deleted: 1 });
  assert.equal((await daily(p)).rows.length, 0);
  assert.equal((await e.t.request('GET', `/api/llm/${p.id}/usage?months=0`, { token: e.user.pat })).status, 400);
  const other = await e.t.createUser();
  assert.equal((await e.t.request('GET', `/api/llm/${p.id}/usage/daily`, { token: other.pat })).status, 404);
});

test('with the key cap removed the proxy cap still applies; deleting a key\'s usage history leaves budgets alone', async () => {
  now = Date.parse('2025-06-20T10:00:00Z');
  const p = await createLlmProxy(e, 'openai', { budget: { period: 'daily', capUsd: 0.03, hardBlock: true } });
  const a = await createLlmKey(e, p);
  const links = { budget: `/api/llm/${p.id}/keys/${a.id}/budget`, history: `/api/llm/${p.id}/keys/${a.id}/usage/history` };
  assert.equal((await e.t.request('PUT', links.budget, { token: e.user.pat, body: { period: 'daily', capUsd: 0.01, hardBlock: true } })).status, 200);
  assert.equal((await call(p, a.key)).status, 200);
  assert.equal((await call(p, a.key)).headers.get('x-tollgate-budget-exceeded'), 'key');
  const del = await e.t.request('DELETE', links.budget, { token: e.user.pat });
  assert.equal(del.status, 200, del.text);
  assert.equal((await call(p, a.key)).status, 200, 'no key cap any more');
  assert.equal((await call(p, a.key)).status, 200, 'proxy spend 2.37 of 3 cents: still admitted');
  const refused = await call(p, a.key);
  assert.deepEqual([refused.status, refused.headers.get('x-tollgate-budget-exceeded')], [402, 'proxy'], 'the proxy cap is still in force');

  await e.t.flush();
  assert.ok((await daily(p, `/api/llm/${p.id}/keys/${a.id}/usage/daily?days=1`)).rows.length, 'the key has usage rows');
  for (const bad of ['2025-06-20', 'x']) {
    const r = await e.t.request('DELETE', `${links.history}?before=${bad}`, { token: e.user.pat });
    assert.deepEqual([r.status, r.body], [400, { error: 'before must be a YYYYMMDD integer' }]);
  }
  const spent = (await daily(p)).window.spentCents;
  const gone = await e.t.request('DELETE', `${links.history}?all=true`, { token: e.user.pat });
  assert.equal(gone.status, 200, gone.text);
  assert.ok(gone.body.deleted >= 1);
  assert.equal((await daily(p, `/api/llm/${p.id}/keys/${a.id}/usage/daily?days=1`)).rows.length, 0);
  assert.equal((await daily(p)).window.spentCents, spent, 'budget counters untouched');
  assert.equal((await call(p, a.key)).status, 402, 'and still enforced');
});
