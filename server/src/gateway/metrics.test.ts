// Prometheus metrics on the gateway's admin listener (GET /metrics): after real traffic through both proxy kinds,
// the scrape counts responses by kind and status, outcomes and rule decisions, upstream latency, hard budget
// blocks and the config version.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createKey, createProxy, INIT, putRules, rawPost } from '@tollgate/testkit/mcp-kit.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { createLlmKey, createLlmProxy, rawLlm, startLlmEnv, type LlmEnv } from '@tollgate/testkit/llm-kit.ts';
import { scrapeMetrics } from '@tollgate/testkit/metrics-scrape.ts';
import { must } from '@tollgate/testkit/harness.ts';

let e: LlmEnv;
let up: McpUpstream;
before(async () => {
  e = await startLlmEnv();
  up = await startMcpUpstream();
});
after(async () => {
  await up.close();
  await e.close();
});

const scrape = () => scrapeMetrics(e.t.app.gateway!.adminUrl);

test('a scrape after traffic counts responses, outcomes, rule decisions, upstream latency, budget blocks and the config version', async () => {
  const p = await createProxy(e.t, e.user, up.url);
  const key = await createKey(e.t, p);
  await putRules(e.t, p, [{ rule_type: 'rate_limit', tools: ['*'], name: 'tight', match_key: 'api_key', threshold: 2, timespan: 60 }]);
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) statuses.push((await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${key}` })).status);
  assert.deepEqual(statuses, [200, 200, 429]);
  assert.equal((await rawPost(p.pathUrl, INIT)).status, 401);

  const llm = await createLlmProxy(e, 'openai', { budget: { period: 'daily', capUsd: 0.03, hardBlock: true } });
  const k = await createLlmKey(e, llm);
  const prompt = { model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(4000) }] };
  let llmStatus = 0;
  for (let i = 0; i < 20 && llmStatus !== 402; i++) llmStatus = (await rawLlm(`${llm.base}/v1/chat/completions`, prompt, { authorization: `Bearer ${k.key}` })).status;
  assert.equal(llmStatus, 402, 'the hard budget blocked at last');
  await e.t.flush();

  const m = await scrape();
  assert.equal(m.get('tollgate_gateway_responses_total{kind="mcp",status="200"}'), 2);
  assert.equal(m.get('tollgate_gateway_responses_total{kind="mcp",status="429"}'), 1);
  assert.equal(m.get('tollgate_gateway_responses_total{kind="mcp",status="401"}'), 1);
  assert.equal(m.get('tollgate_gateway_responses_total{kind="llm",status="402"}'), 1);
  assert.ok((m.get('tollgate_gateway_responses_total{kind="llm",status="200"}') ?? 0) >= 1);
  assert.equal(m.get('tollgate_gateway_events_total{kind="mcp",type="allow",bucket="allow"}'), 2);
  assert.equal(m.get('tollgate_gateway_events_total{kind="mcp",type="rate_limited",bucket="deny"}'), 1);
  assert.equal(m.get('tollgate_gateway_events_total{kind="llm",type="deny:budget_exceeded",bucket="deny"}'), 1);
  assert.equal(m.get('tollgate_gateway_budget_blocks_total{scope="proxy"}'), 1);
  assert.equal(m.get('tollgate_gateway_upstream_response_seconds_count{kind="mcp"}'), 2, 'the two forwarded requests');
  assert.ok((m.get('tollgate_gateway_upstream_response_seconds_count{kind="llm"}') ?? 0) >= 1);
  assert.equal(m.get('tollgate_gateway_config_version'), e.t.app.gateway!.store.version);
  assert.ok((m.get('tollgate_gateway_process_resident_memory_bytes') ?? 0) > 0, 'process metrics come along');
});

test('a request no proxy matches counts under kind "none"', async () => {
  const before = (await scrape()).get('tollgate_gateway_responses_total{kind="none",status="404"}') ?? 0;
  assert.equal((await fetch(`${e.t.gateway}/no-such-proxy/`)).status, 404);
  assert.equal((await scrape()).get('tollgate_gateway_responses_total{kind="none",status="404"}'), before + 1);
});

test('a change to one user rebuilds only that user\'s proxy runtimes, and the gateway reads only that user again', async () => {
  const other = await e.t.createUser();
  const mine = await createProxy(e.t, e.user, up.url);
  const theirs = await createProxy(e.t, other, up.url);
  const myKey = await createKey(e.t, mine);
  const theirKey = await createKey(e.t, theirs);
  const call = async (p: typeof mine, key: string) => (await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${key}` })).status;
  assert.deepEqual([await call(mine, myKey), await call(theirs, theirKey)], [200, 200]);
  // Their key on my proxy: a known key that grants nothing here.
  assert.equal(await call(mine, theirKey), 403);
  const before = await scrape();

  const id = must(await e.t.client(other.pat).call('GET /api/keys')).keys.find((k) => k.tags.includes(`mcp:${theirs.id}:tool:*`))!.id;
  must(await e.t.client(other.pat).call('DELETE /api/keys/:id', { params: { id } }));
  assert.equal(await call(mine, myKey), 200);
  assert.equal(await call(mine, theirKey), 401, 'my proxy\'s runtime was kept, and it reads the keys of the current snapshot');
  assert.equal(await call(theirs, theirKey), 401);

  const after = await scrape();
  const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
  assert.equal(delta('tollgate_gateway_runtime_builds_total{kind="mcp"}'), 1, 'their proxy only');
  assert.ok(delta('tollgate_gateway_config_reloads_total{read="incremental"}') >= 1);
  assert.equal(delta('tollgate_gateway_config_reloads_total{read="full"}'), 0);
});
