// The chart's topology with real processes: one management API (role api) and two gateway processes
// (`tollgate serve --role gateway`) on one PostgreSQL and one Redis. A proxy created through the API serves on both
// gateways within a second, a rate limit holds once across both and a rule change applies on both, and a gateway
// stopped (SIGTERM) in the middle of traffic loses no usage: every answered request is counted once. (One budget
// window across replicas: llm-budget-replicas.test.ts; a shared ban: gateway-replicas.test.ts.)
// Needs DATABASE_URL and REDIS_URL (the embedded datastores belong to one process).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startChildGateway, childAtVersion, type ChildGateway } from '@tollgate/testkit/child-gateway.ts';
import type { ApiClient } from '@tollgate/contract';
import { must, newIsolation, startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { startFakeProvider, type FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { rawLlm } from '@tollgate/testkit/llm-kit.ts';
import { INIT, rawPost } from '@tollgate/testkit/mcp-kit.ts';
import { eventually } from '@tollgate/testkit/eventually.ts';

const shared = !!process.env.DATABASE_URL && !!process.env.REDIS_URL;
const why = 'an API and two gateway processes need a shared PostgreSQL and Redis: set DATABASE_URL and REDIS_URL to run this test';

let api: TestApp;
let user: TestUser;
let client: ApiClient;
let up: McpUpstream;
let fake: FakeProvider;
let a: ChildGateway;
let b: ChildGateway;
const iso = newIsolation();

before(async () => {
  if (!shared) return;
  fake = await startFakeProvider('openai');
  const env = { TOLLGATE_PROVIDER_BASE_URL_OPENAI: fake.url };
  api = await startTestApp({ isolation: iso, role: 'api', env });
  user = await api.createUser();
  client = api.client(user.pat);
  up = await startMcpUpstream();
  [a, b] = await Promise.all([startChildGateway(iso, env), startChildGateway(iso, env)]);
});

after(async () => {
  if (!shared) return;
  for (const g of [a, b]) g?.child.kill('SIGKILL');
  await up.close();
  await fake.close();
  await api.app.services.db.query(`DROP SCHEMA IF EXISTS ${iso.schema} CASCADE`).catch(() => undefined);
  await api.close();
});

const version = async (g: ChildGateway) => ((await (await fetch(`${g.adminUrl}/status`)).json()) as { configVersion: number }).configVersion;

test('a proxy created through the API serves on both gateways within a second; a rate limit and a rule change hold on both', { skip: shared ? false : why }, async () => {
  const { id } = must(await client.call('POST /api/mcp', { body: { name: 'replicated', url: up.url } })).server;
  const t0 = Date.now();
  must(await client.call('POST /api/mcp/:id/tools', { params: { id } }));
  const k = must(await client.call('POST /api/keys', { body: { name: 'both', mcpPermissions: [{ id, tools: ['*'] }] } }));
  const h = { authorization: `Bearer ${k.key.key}` };
  // Config reaches the gateways by Redis pub/sub (the version poll is the fallback).
  const serving = (g: ChildGateway) => eventually(async () => (await rawPost(`${g.url}/${id}/`, INIT, h)).status === 200, { timeoutMs: 1000, intervalMs: 20, what: 'the proxy serving' });
  await Promise.all([serving(a), serving(b)]);
  console.log(`# the new proxy served on both gateways ${Date.now() - t0} ms after its create answer`);

  // Each change of config bumps its version by one; both gateways are at the same version now (they serve the proxy).
  const withoutRule = Math.max(await version(a), await version(b));
  must(await client.call('PUT /api/mcp/:id/rules', { params: { id }, body: { rules: [{ rule_type: 'rate_limit', tools: ['*'], name: 'shared', match_key: 'api_key', threshold: 4, timespan: 60 }] } }));
  await Promise.all([childAtVersion(a, withoutRule + 1), childAtVersion(b, withoutRule + 1)]);
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await rawPost(`${(i % 2 ? a : b).url}/${id}/`, INIT, h)).status);
  assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429], 'four requests in all, whichever gateway answers');

  const before = await version(a);
  must(await client.call('PUT /api/mcp/:id/rules', { params: { id }, body: { rules: [] } }));
  await Promise.all([childAtVersion(a, before + 1), childAtVersion(b, before + 1)]);
  assert.equal((await rawPost(`${a.url}/${id}/`, INIT, h)).status, 200, 'the removed rule no longer applies on A');
  assert.equal((await rawPost(`${b.url}/${id}/`, INIT, h)).status, 200, 'nor on B');
});

test('a gateway stopped in the middle of traffic loses no usage: every answered request is counted once', { skip: shared ? false : why }, async () => {
  const { id } = must(await client.call('POST /api/llm', { body: { name: 'counted', provider: 'openai', providerKey: fake.providerKey } }));
  const k = must(await client.call('POST /api/keys', { body: { name: 'counted', llmPermissions: [{ id, models: ['*'] }] } }));
  const h = { authorization: `Bearer ${k.key.key}` };
  const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
  await eventually(async () => (await rawLlm(`${b.url}/${id}/v1/chat/completions`, body, h)).status === 200, { what: 'B serving the proxy' });
  await eventually(async () => (await rawLlm(`${a.url}/${id}/v1/chat/completions`, body, h)).status === 200, { what: 'A serving the proxy' });
  const counted = async () => must(await client.call('GET /api/llm/:id/usage', { params: { id }, query: { months: 1 } })).totals.requests;
  await eventually(async () => (await counted()) === 2, { what: 'the two warm-up requests counted' });
  // A provider that takes 50 ms keeps requests in flight on B when it is told to stop.
  fake.override = async (r, res) => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'c', object: 'chat.completion', model: r.json?.model, choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 20 } }));
    return true;
  };
  const answered = { n: 2 }; // the two warm-up requests
  const statuses: Record<string, number> = {};
  const send = async (g: ChildGateway) => {
    const r = await rawLlm(`${g.url}/${id}/v1/chat/completions`, body, h).catch((e: Error) => ({ status: e.message }));
    const tag = `${g === a ? 'A' : 'B'}:${r.status}`;
    statuses[tag] = (statuses[tag] ?? 0) + 1;
    if (r.status === 200) answered.n++;
  };
  const stopped = new Promise<void>((resolve) => b.child.once('exit', () => resolve()));
  const load = Array.from({ length: 60 }, (_, i) => (async () => {
    await new Promise((resolve) => setTimeout(resolve, i * 10));
    await send(i % 2 ? a : b);
  })());
  setTimeout(() => b.child.kill('SIGTERM'), 250);
  await Promise.all(load);
  await stopped;
  fake.override = undefined;
  await api.flush();
  await eventually(async () => (await counted()) === answered.n, { timeoutMs: 15_000, what: `usage counting the ${answered.n} answered requests` }).catch(async (err: Error) => {
    throw new Error(`${err.message}: usage has ${await counted()} (statuses: ${JSON.stringify(statuses)})`);
  });
  assert.equal(await counted(), answered.n, 'counted once each: none lost with the stopped gateway, none twice');
  assert.ok(answered.n > 2 && answered.n < 62, `the stop cut the traffic short (${answered.n} answered)`);
});
