// Two gateway processes on one PostgreSQL and one Redis share an LLM budget window (issue 4: "several gateway
// replicas share one window through Redis"): spend charged through one gateway counts in the other, a hard cap
// reached through one refuses requests on both, and parallel requests spread over both cannot overshoot it by more
// than one request. The second gateway is a real child process (`tollgate serve --role gateway`) on the same schema,
// key prefix and master key. Needs DATABASE_URL and REDIS_URL.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startReplicaPair, type ReplicaPair } from '@tollgate/testkit/child-gateway.ts';
import { must, type TestApp } from '@tollgate/testkit/harness.ts';
import { startFakeProvider, type FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { rawLlm } from '@tollgate/testkit/llm-kit.ts';

const shared = !!process.env.DATABASE_URL && !!process.env.REDIS_URL;
const why = 'two gateway replicas need a shared PostgreSQL and Redis: set DATABASE_URL and REDIS_URL to run this test';

let pair: ReplicaPair;
let t: TestApp;
let fake: FakeProvider;
let gatewayB = '';

before(async () => {
  if (!shared) return;
  fake = await startFakeProvider('openai');
  pair = await startReplicaPair({ TOLLGATE_PROVIDER_BASE_URL_OPENAI: fake.url });
  ({ t, b: { url: gatewayB } } = pair);
});
after(async () => {
  if (!shared) return;
  await pair.close();
  await fake.close();
});

const body = { model: 'o1', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };

test('two gateway processes share one budget window through Redis', { skip: shared ? false : why }, async () => {
  const user = await t.createUser();
  const api = t.client(user.pat);
  const { id } = must(await api.call('POST /api/llm', { body: { name: 'shared', provider: 'openai', providerKey: fake.providerKey, budget: { period: 'daily', capUsd: 1000, hardBlock: true } } }));
  const key = must(await api.call('POST /api/keys', { body: { name: 'both', llmPermissions: [{ id, models: ['*'] }] } })).key.key;
  const urlA = `${t.gateway}/${id}/v1/chat/completions`;
  const urlB = `${gatewayB}/${id}/v1/chat/completions`;
  await pair.caughtUp();
  const warmUp = await rawLlm(urlB, body, { authorization: `Bearer ${key}` });
  assert.equal(warmUp.status, 200, warmUp.text);
  // Each answer costs (10 * 15 + 100 * 60) / 1e6 USD = 0.615 cents.
  fake.override = async (r, res) => {
    // Not a wait for anything: a provider that takes 100 ms keeps the 40 requests in flight together.
    await new Promise((resolve) => setTimeout(resolve, 100));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'c', object: 'chat.completion', model: r.json?.model, choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 100 } }));
    return true;
  };
  // Spend so far (the warm-up request through B) is 1.1835 cents; cap the window at 5 cents now.
  must(await api.call('PATCH /api/llm/:id', { params: { id }, body: { budget: { period: 'daily', capUsd: 0.05, hardBlock: true } } }));
  await pair.caughtUp();
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => rawLlm(i % 2 ? urlA : urlB, body, { authorization: `Bearer ${key}` })));
  const ok = results.filter((r) => r.status === 200).length;
  assert.ok(results.every((r) => r.status === 200 || r.status === 402), results.map((r) => r.status).join());
  const spent = 1.1835 + ok * 0.615;
  assert.ok(ok >= 1 && spent <= 5 + 0.615, `admitted ${ok}, spent ${spent} cents against a 5 cent cap`);
  // Whatever replica answers now, the shared window is over the cap.
  if (spent >= 5) {
    assert.equal((await rawLlm(urlA, body, { authorization: `Bearer ${key}` })).status, 402);
    assert.equal((await rawLlm(urlB, body, { authorization: `Bearer ${key}` })).status, 402);
  }
  const d = must(await api.call('GET /api/llm/:id/usage/daily', { params: { id }, query: { days: 1 } }));
  assert.equal(d.window?.spentCents, Math.round(spent));
  fake.override = undefined;
});
