// The operator end to end on a real Kubernetes API server: objects applied with kubectl configure a real Tollgate
// (management API + gateway), their status and printer columns tell the truth, the key read from its Secret carries
// MCP traffic (official MCP SDK client) and LLM traffic (the OpenAI SDK) through the gateway, and changes, drift,
// rotation, missing dependencies, invalid objects and namespace deletion behave as docs/kubernetes.md says.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import type { ApiClient } from '@tollgate/contract';
import type { TestApp, TestUser } from '@tollgate/testkit/harness.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { startFakeProvider, type FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { connect } from '@tollgate/testkit/mcp-kit.ts';
import { eventually } from '@tollgate/testkit/eventually.ts';
import {
  bodyOf, condition, connectedNamespace, manifest, startClusterWithApp, startOperator, statusOf, type Cluster, type ClusterWithApp, type OperatorProcess,
} from './kit.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const UPSTREAM_TOKEN = 'upstream-bearer-token';
const WAIT = { timeoutMs: 45_000, intervalMs: 200 };

let stack: ClusterWithApp;
let cluster: Cluster;
let t: TestApp;
let user: TestUser;
let api: ApiClient;
let upstream: McpUpstream;
let openai: FakeProvider;
let operator: OperatorProcess;

before(async () => {
  upstream = await startMcpUpstream({ token: UPSTREAM_TOKEN });
  openai = await startFakeProvider('openai');
  stack = await startClusterWithApp({ app: { env: { TOLLGATE_PROVIDER_BASE_URL_OPENAI: openai.url } } });
  ({ cluster, t, user, api } = stack);
  operator = await startOperator(cluster, { TOLLGATE_OPERATOR_RESYNC_S: '4', TOLLGATE_OPERATOR_LEASE_NAMESPACE: 'default' });
});

after(async () => {
  await operator?.stop();
  await stack?.close();
  await upstream?.close();
  await openai?.close();
});

const namespaceWithConnection = (ns: string) => connectedNamespace(stack, ns);

/** Waits for an object's Ready condition to have this status (and returns the object). */
async function ready(resource: string, name: string, ns: string, status = 'True') {
  return eventually(async () => {
    const o = await cluster.get(resource, name, ns);
    return condition(o, 'Ready')?.status === status && o.status.observedGeneration === o.metadata.generation ? o : undefined;
  }, { ...WAIT, what: `${resource} ${ns}/${name} Ready=${status}` });
}

/** The examples of examples/kubectl, pointed at this test's Tollgate, upstream and provider. */
function exampleManifests(): string {
  const dir = join(root, 'examples', 'kubectl');
  return readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort().map((f) => readFileSync(join(dir, f), 'utf8')).join('\n---\n')
    .replaceAll('http://127.0.0.1:8080', t.api)
    .replaceAll('REPLACE_WITH_YOUR_PAT', user.pat)
    .replaceAll('REPLACE_WITH_THE_UPSTREAM_TOKEN', UPSTREAM_TOKEN)
    .replaceAll('REPLACE_WITH_sk-...', openai.providerKey)
    .replaceAll('https://mcp.example.com/mcp', upstream.url);
}

test('the examples apply in order, become Ready, and serve MCP and LLM traffic with the key from the Secret', async () => {
  const t0 = Date.now();
  await cluster.ok(['apply', '-f', '-'], exampleManifests());
  const ns = 'tollgate-demo';
  const mcp = await ready('mcpproxy', 'docs', ns);
  const mcpReadyMs = Date.now() - t0;
  const llm = await ready('llmproxy', 'openai', ns);
  const key = await ready('apikey', 'app', ns);
  await ready('ruleset', 'docs-baseline', ns);
  await ready('ruleset', 'openai-baseline', ns);
  console.log(`# an applied McpProxy became Ready in ${mcpReadyMs} ms (with tool discovery)`);

  // Status and printer columns.
  assert.match(mcp.status.proxyHost, new RegExp(`^${mcp.status.id}\\.`));
  assert.ok(mcp.status.tools.includes('echo'), 'the discovered tools are in the status');
  const table = await cluster.ok(['get', 'mcpproxies', '-n', ns]);
  assert.match(table, /NAME\s+READY\s+PROXY HOST\s+AGE/);
  assert.match(table, new RegExp(`docs\\s+True\\s+${mcp.status.proxyHost.replaceAll('.', '\\.')}`));

  // The management API has them, under the PAT's user.
  const remote = bodyOf(await api.call('GET /api/mcp/:id', { params: { id: mcp.status.id } }));
  assert.match(remote.name, /\[k8s:[0-9a-f-]{36}\]$/);
  assert.equal(remote.url, upstream.url);
  assert.equal(remote.authType, 'bearer');
  assert.ok(!JSON.stringify(remote).includes(UPSTREAM_TOKEN), 'the token is never returned');
  const rules = bodyOf(await api.call('GET /api/mcp/:id/rules', { params: { id: mcp.status.id } }));
  assert.ok(rules.rules.length >= 1);

  // The key from the Secret: MCP through the gateway (the upstream's bearer check passes: the token reached it).
  const secret = await cluster.get('secret', key.status.secretName, ns);
  const plaintext = Buffer.from(secret.data.key, 'base64').toString('utf8');
  assert.equal(secret.metadata.ownerReferences[0].uid, key.metadata.uid);
  const session = await connect(t, { id: mcp.status.id, user, pathUrl: `${t.gateway}/${mcp.status.id}/`, hostUrl: '' }, { token: plaintext });
  try {
    const tools = await session.client.listTools();
    assert.ok(tools.tools.some((x) => x.name === 'echo'));
    const r = await session.client.callTool({ name: 'echo', arguments: { text: 'through kubernetes' } });
    assert.match(JSON.stringify(r.content), /through kubernetes/);
  } finally {
    await session.close();
  }
  // LLM through the gateway with the OpenAI SDK; the provider key from its Secret reached the fake provider.
  const client = new OpenAI({ apiKey: plaintext, baseURL: `${t.gateway}/${llm.status.id}/v1` });
  const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  assert.ok(completion.choices.length > 0);
  assert.equal(openai.last().headers.authorization, `Bearer ${openai.providerKey}`);
});

test('a change of the spec is applied, and a change made through REST is reverted on the next resync', async () => {
  const ns = 'drift';
  await namespaceWithConnection(ns);
  await cluster.ok(['apply', '-f', '-'], manifest(
    { apiVersion: 'tollgate.dev/v1beta1', kind: 'LlmProxy', metadata: { name: 'p', namespace: ns }, spec: { provider: 'openai', allowedModels: ['gpt-4o'] } },
    { apiVersion: 'tollgate.dev/v1beta1', kind: 'RuleSet', metadata: { name: 'limits', namespace: ns }, spec: { targetRef: { kind: 'LlmProxy', name: 'p' }, rules: [{ rule_type: 'rate_limit', tools: ['*'], name: 'rl', match_key: 'api_key', threshold: 50, timespan: 60 }] } },
  ));
  const p = await ready('llmproxy', 'p', ns);
  await ready('ruleset', 'limits', ns);
  const id = p.status.id as string;
  const proxy = () => api.call('GET /api/llm/:id', { params: { id } });

  await cluster.ok(['patch', 'llmproxy', 'p', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { allowedModels: ['gpt-4o', 'gpt-4o-mini'], budget: { period: 'daily', capUsd: 5 } } })]);
  await eventually(async () => {
    const r = bodyOf(await proxy());
    return r.allowedModels.length === 2 && r.budget?.capUsd === 5;
  }, { ...WAIT, what: 'the spec change reaching the API' });

  // Behind the operator's back: rename, change the models, empty the rules.
  bodyOf(await api.call('PATCH /api/llm/:id', { params: { id }, body: { name: 'renamed by hand', allowedModels: [] } }));
  bodyOf(await api.call('PUT /api/llm/:id/rules', { params: { id }, body: { rules: [] } }));
  await eventually(async () => {
    const r = bodyOf(await proxy());
    const rr = bodyOf(await api.call('GET /api/llm/:id/rules', { params: { id } }));
    return r.name.startsWith('p [k8s:') && r.allowedModels.length === 2 && rr.rules.length === 1;
  }, { ...WAIT, what: 'the drift repaired' });

  // The remote proxy deleted behind its back: recreated (a new id), and the RuleSet follows it.
  bodyOf(await api.call('DELETE /api/llm/:id', { params: { id } }));
  const again = await eventually(async () => {
    const o = await cluster.get('llmproxy', 'p', ns);
    return o.status.id !== id && condition(o, 'Ready')?.status === 'True' ? o : undefined;
  }, { ...WAIT, what: 'the proxy recreated' });
  await eventually(async () => {
    const r = await api.call('GET /api/llm/:id/rules', { params: { id: again.status.id } });
    return r.ok && r.body.rules.length === 1;
  }, { ...WAIT, what: 'the rules stored on the new proxy' });
  const proxies = bodyOf(await api.call('GET /api/llm')).proxies.filter((x) => x.name.includes(p.metadata.uid));
  assert.equal(proxies.length, 1, 'never two remote proxies for one object');
});

test('an invalid object is refused by the API server with the CRD\'s message', async () => {
  const ns = 'invalid';
  await namespaceWithConnection(ns);
  const apply = (obj: unknown) => cluster.kubectl(['apply', '-f', '-'], manifest(obj));
  const bearerWithoutToken = await apply({ apiVersion: 'tollgate.dev/v1beta1', kind: 'McpProxy', metadata: { name: 'x', namespace: ns }, spec: { url: 'https://mcp.example.com/mcp', upstreamAuth: { type: 'bearer' } } });
  assert.notEqual(bearerWithoutToken.code, 0);
  assert.match(bearerWithoutToken.stderr, /tokenSecretRef/);
  const badEnum = await apply({ apiVersion: 'tollgate.dev/v1beta1', kind: 'LlmProxy', metadata: { name: 'x', namespace: ns }, spec: { provider: 'nope' } });
  assert.notEqual(badEnum.code, 0);
  assert.match(badEnum.stderr, /spec.provider: Unsupported value: "nope"/);
  const banWithoutSpan = await apply({ apiVersion: 'tollgate.dev/v1beta1', kind: 'RuleSet', metadata: { name: 'x', namespace: ns }, spec: { targetRef: { kind: 'McpProxy', name: 'm' }, rules: [{ rule_type: 'rate_limit', tools: ['*'], name: 'r', match_key: 'ip', threshold: 1, timespan: 60, ban_after_n_exceeded: 3 }] } });
  assert.notEqual(banWithoutSpan.code, 0);
  assert.match(banWithoutSpan.stderr, /ban_after_n_exceeded and ban_timespan must be set together/);
  const mcpOnlyOnLlm = await apply({ apiVersion: 'tollgate.dev/v1beta1', kind: 'RuleSet', metadata: { name: 'x', namespace: ns }, spec: { targetRef: { kind: 'LlmProxy', name: 'l' }, rules: [{ rule_type: 'tool_description_inject', tools: ['*'], inject_text: 'x', inject_position: 'append' }] } });
  assert.notEqual(mcpOnlyOnLlm.code, 0);
  assert.match(mcpOnlyOnLlm.stderr, /tool_description_inject/);
  const reservedTag = await apply({ apiVersion: 'tollgate.dev/v1beta1', kind: 'ApiKey', metadata: { name: 'x', namespace: ns }, spec: { customTags: ['k8s:uid:0000'] } });
  assert.notEqual(reservedTag.code, 0);
  assert.match(reservedTag.stderr, /the "k8s:" namespace is reserved/);
  const listed = await cluster.ok(['get', 'mcpproxies,llmproxies,rulesets,apikeys', '-n', ns, '-o', 'name']);
  assert.equal(listed.trim(), '', 'nothing was stored');
});

test('a missing dependency sets a condition and waits; nothing remote is created or emptied', async () => {
  const ns = 'waiting';
  await namespaceWithConnection(ns);
  const keyCount = async () => bodyOf(await api.call('GET /api/keys')).keys.length;
  const before = await keyCount();
  await cluster.ok(['apply', '-f', '-'], manifest(
    { apiVersion: 'tollgate.dev/v1beta1', kind: 'ApiKey', metadata: { name: 'k', namespace: ns }, spec: { llmPermissions: [{ proxyRef: { name: 'later' }, models: ['*'] }] } },
    { apiVersion: 'tollgate.dev/v1beta1', kind: 'McpProxy', metadata: { name: 'm', namespace: ns }, spec: { url: upstream.url, upstreamAuth: { type: 'bearer', tokenSecretRef: { name: 'upstream', key: 'token' } } } },
  ));
  const k = await eventually(async () => {
    const o = await cluster.get('apikey', 'k', ns);
    return condition(o, 'Ready')?.reason === 'ProxyMissing' ? o : undefined;
  }, { ...WAIT, what: 'ApiKey waiting for its proxy' });
  assert.equal(condition(k, 'Synced')?.status, 'False');
  const m = await eventually(async () => {
    const o = await cluster.get('mcpproxy', 'm', ns);
    return condition(o, 'Ready')?.reason === 'SecretMissing' ? o : undefined;
  }, { ...WAIT, what: 'McpProxy waiting for its Secret' });
  assert.match(condition(m, 'Ready')!.message, /Secret upstream/);
  assert.equal(await keyCount(), before, 'no key was created while its proxy is missing');
  assert.equal(bodyOf(await api.call('GET /api/mcp')).servers.filter((s) => s.name.includes(m.metadata.uid)).length, 0);
  const events = await cluster.ok(['get', 'events', '-n', ns, '-o', 'json']);
  assert.ok(JSON.parse(events).items.some((e: { reason: string; involvedObject: { name: string } }) => e.reason === 'SecretMissing' && e.involvedObject.name === 'm'));

  // The dependencies arrive: both converge without anyone touching them.
  await cluster.ok(['apply', '-f', '-'], manifest(
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'upstream', namespace: ns }, stringData: { token: UPSTREAM_TOKEN } },
    { apiVersion: 'tollgate.dev/v1beta1', kind: 'LlmProxy', metadata: { name: 'later', namespace: ns }, spec: { provider: 'openai' } },
  ));
  await ready('mcpproxy', 'm', ns);
  await ready('apikey', 'k', ns);
});

test('an object that never reached the API is deleted at once; a failed discovery after a change keeps the proxy not Ready', async () => {
  await cluster.ok(['apply', '-f', '-'], manifest(
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'unconnected' } },
    { apiVersion: 'tollgate.dev/v1beta1', kind: 'LlmProxy', metadata: { name: 'p', namespace: 'unconnected' }, spec: { provider: 'openai' } },
  ));
  await eventually(async () => condition(await cluster.get('llmproxy', 'p', 'unconnected'), 'Ready')?.reason === 'ConnectionSecretMissing', { ...WAIT, what: 'waiting for a connection' });
  await cluster.ok(['delete', 'llmproxy', 'p', '-n', 'unconnected', '--timeout=30s']);

  const ns = 'rediscover';
  await namespaceWithConnection(ns);
  await cluster.ok(['apply', '-f', '-'], manifest(
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'upstream', namespace: ns }, stringData: { token: UPSTREAM_TOKEN } },
    { apiVersion: 'tollgate.dev/v1beta1', kind: 'McpProxy', metadata: { name: 'm', namespace: ns }, spec: { url: upstream.url, upstreamAuth: { type: 'bearer', tokenSecretRef: { name: 'upstream', key: 'token' } } } },
  ));
  await ready('mcpproxy', 'm', ns);
  const dead = `http://127.0.0.1:1/mcp`;
  await cluster.ok(['patch', 'mcpproxy', 'm', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { url: dead } })]);
  const failed = await eventually(async () => {
    const o = await cluster.get('mcpproxy', 'm', ns);
    return condition(o, 'Ready')?.reason === 'DiscoveryFailed' ? o : undefined;
  }, { ...WAIT, what: 'DiscoveryFailed' });
  assert.equal(condition(failed, 'Synced')?.status, 'True', 'the remote object matches the spec; only its catalog is unknown');
  // Retries (with backoff) keep it not Ready: the old upstream's tools are not taken for the new one's.
  await eventually(async () => (await operator.metric('tollgate_operator_reconcile_errors_total', '{kind="McpProxy",reason="DiscoveryFailed"}')) >= 3, { ...WAIT, what: 'discovery retried' });
  assert.equal(condition(await cluster.get('mcpproxy', 'm', ns), 'Ready')?.status, 'False');
  await cluster.ok(['patch', 'mcpproxy', 'm', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { url: upstream.url } })]);
  await ready('mcpproxy', 'm', ns);
});

test('rotating a key: a new key in the Secret, the old one refused by the gateway', async () => {
  const ns = 'rotate';
  await namespaceWithConnection(ns);
  await cluster.ok(['apply', '-f', '-'], manifest(
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'provider', namespace: ns }, stringData: { key: openai.providerKey } },
    { apiVersion: 'tollgate.dev/v1beta1', kind: 'LlmProxy', metadata: { name: 'p', namespace: ns }, spec: { provider: 'openai', providerKeySecretRef: { name: 'provider', key: 'key' } } },
    { apiVersion: 'tollgate.dev/v1beta1', kind: 'ApiKey', metadata: { name: 'k', namespace: ns }, spec: { llmPermissions: [{ proxyRef: { name: 'p' }, models: ['*'] }], secretName: 'k-key' } },
  ));
  const p = await ready('llmproxy', 'p', ns);
  const k = await ready('apikey', 'k', ns);
  const read = async () => Buffer.from((await cluster.get('secret', 'k-key', ns)).data.key, 'base64').toString('utf8');
  const oldKey = await read();
  const call = (key: string) => fetch(`${t.gateway}/${p.status.id}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  }).then((r) => r.status);
  assert.equal(await call(oldKey), 200);

  await cluster.ok(['annotate', 'apikey', 'k', '-n', ns, 'tollgate.dev/rotate=1', '--overwrite']);
  const rotated = await eventually(async () => {
    const o = await cluster.get('apikey', 'k', ns);
    return o.status.rotation === '1' && o.status.id !== k.status.id ? o : undefined;
  }, { ...WAIT, what: 'the rotation' });
  const newKey = await read();
  assert.notEqual(newKey, oldKey);
  await eventually(async () => (await call(newKey)) === 200 && (await call(oldKey)) === 401, { ...WAIT, what: 'the gateway using the new key only' });
  const keys = bodyOf(await api.call('GET /api/keys')).keys.filter((x) => x.tags.includes(`k8s:uid:${k.metadata.uid}`));
  assert.deepEqual(keys.map((x) => x.id), [rotated.status.id], 'exactly one remote key: the new one');

  // A key deleted behind the operator's back is reissued, and the Secret follows.
  bodyOf(await api.call('DELETE /api/keys/:id', { params: { id: rotated.status.id } }));
  await eventually(async () => {
    const o = await cluster.get('apikey', 'k', ns);
    return o.status.id !== rotated.status.id && condition(o, 'Ready')?.status === 'True';
  }, { ...WAIT, what: 'the key reissued' });
  await eventually(async () => (await call(await read())) === 200, { ...WAIT, what: 'the reissued key working' });
});

test('deleting a namespace deletes every remote object of its objects', async () => {
  const ns = 'doomed';
  await namespaceWithConnection(ns);
  await cluster.ok(['apply', '-f', '-'], manifest(
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'upstream', namespace: ns }, stringData: { token: UPSTREAM_TOKEN } },
    { apiVersion: 'tollgate.dev/v1beta1', kind: 'McpProxy', metadata: { name: 'm', namespace: ns }, spec: { url: upstream.url, upstreamAuth: { type: 'bearer', tokenSecretRef: { name: 'upstream', key: 'token' } }, resources: [{ uri: 'doc://readme', name: 'readme', content: 'hello' }] } },
    { apiVersion: 'tollgate.dev/v1beta1', kind: 'LlmProxy', metadata: { name: 'l', namespace: ns }, spec: { provider: 'openai' } },
    { apiVersion: 'tollgate.dev/v1beta1', kind: 'ApiKey', metadata: { name: 'k', namespace: ns }, spec: { mcpPermissions: [{ proxyRef: { name: 'm' }, tools: ['echo'], resources: ['doc://readme'] }], llmPermissions: [{ proxyRef: { name: 'l' }, models: ['*'] }] } },
    { apiVersion: 'tollgate.dev/v1beta1', kind: 'RuleSet', metadata: { name: 'r', namespace: ns }, spec: { targetRef: { kind: 'McpProxy', name: 'm' }, rules: [{ rule_type: 'tool_description_inject', tools: ['*'], inject_text: 'Be careful.', inject_position: 'append' }] } },
  ));
  const m = await ready('mcpproxy', 'm', ns);
  const l = await ready('llmproxy', 'l', ns);
  const k = await ready('apikey', 'k', ns);
  await ready('ruleset', 'r', ns);
  const conn = await cluster.get('secret', 'tollgate-connection', ns);
  assert.ok(conn.metadata.finalizers.includes('tollgate.dev/cleanup'), 'the connection Secret is kept until the objects are cleaned up');

  await cluster.ok(['delete', 'namespace', ns, '--wait=false']);
  await eventually(async () => (await cluster.kubectl(['get', 'namespace', ns])).code !== 0, { ...WAIT, timeoutMs: 90_000, what: 'the namespace gone' });
  assert.equal(statusOf(await api.call('GET /api/mcp/:id', { params: { id: m.status.id } })), 404);
  assert.equal(statusOf(await api.call('GET /api/llm/:id', { params: { id: l.status.id } })), 404);
  assert.equal(statusOf(await api.call('GET /api/keys/:id', { params: { id: k.status.id } })), 404);
});
