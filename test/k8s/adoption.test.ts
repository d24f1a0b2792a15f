// Adoption and deletion policy on a real Kubernetes API server: an LLM proxy and a client key made through REST (the
// typed client) are taken over by objects with spec.adoptId, keeping their ids, host and plaintext, while traffic
// flows through the gateway before, during and after; a second object naming the same id is refused with the owner
// in its message; deletionPolicy Orphan leaves the remote objects (and the key's Secret) after `kubectl delete`,
// without the ownership mark, so they can be adopted again (docs/kubernetes.md#adopting-existing-objects). An MCP
// server made through REST is adopted by an McpProxy the same way, with an SDK client calling its tool throughout.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiClient } from '@tollgate/contract';
import type { TestApp, TestUser } from '@tollgate/testkit/harness.ts';
import { connect, createKey, createProxy } from '@tollgate/testkit/mcp-kit.ts';
import type { FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { API_VERSION } from '../../operator/src/kinds/specs.ts';
import { startMutableUpstream, type MutableUpstream } from '../tool-pinning-upstream.ts';
import {
  bodyOf, chatStatus, condition, connectedNamespace, manifest, readyWhen, secretKey, startLlmOperatorStack, statusOf,
  type Cluster, type LlmOperatorStack,
} from './kit.ts';

const WAIT = { timeoutMs: 45_000, intervalMs: 200 };
const ns = 'adopt';

let stack: LlmOperatorStack;
let cluster: Cluster;
let t: TestApp;
let api: ApiClient;
let openai: FakeProvider;
let user: TestUser;
let mcpUpstream: MutableUpstream;

before(async () => {
  mcpUpstream = await startMutableUpstream();
  stack = await startLlmOperatorStack();
  ({ cluster, t, api, openai, user } = stack);
  await connectedNamespace(stack, ns);
});

after(async () => {
  await stack?.close();
  await mcpUpstream?.close();
});

/** Calls the proxy every 50 ms until stopped; every answer must be 200. */
function steadyTraffic(proxyId: string, key: string) {
  const statuses: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      statuses.push(await chatStatus(t.gateway, proxyId, key));
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return { statuses, async stop() { running = false; await loop; return statuses; } };
}

const llmProxy = (name: string, spec: Record<string, unknown>) => ({ apiVersion: API_VERSION, kind: 'LlmProxy', metadata: { name, namespace: ns }, spec: { provider: 'openai', ...spec } });
const apiKey = (name: string, spec: Record<string, unknown>) => ({ apiVersion: API_VERSION, kind: 'ApiKey', metadata: { name, namespace: ns }, spec });

test('a proxy and a key made through REST are adopted by id and keep serving; a second claim is refused; Orphan leaves them', async () => {
  // Made outside Kubernetes, as a dashboard or Terraform user would.
  const proxy = bodyOf(await api.call('POST /api/llm', { body: { name: 'made through REST', provider: 'openai', providerKey: openai.providerKey } }));
  const created = bodyOf(await api.call('POST /api/keys', { body: { name: 'rest-key', llmPermissions: [{ id: proxy.id, models: ['*'] }] } })).key;
  assert.equal(await chatStatus(t.gateway, proxy.id, created.key), 200, 'traffic before the adoption');

  const traffic = steadyTraffic(proxy.id, created.key);
  await cluster.ok(['apply', '-f', '-'], manifest(
    llmProxy('shared', { adoptId: proxy.id, allowedModels: ['gpt-4o-mini'], deletionPolicy: 'Orphan' }),
    apiKey('app', { adoptId: created.id, llmPermissions: [{ proxyRef: { name: 'shared' }, models: ['*'] }], deletionPolicy: 'Orphan' }),
  ));
  const adopted = await readyWhen(cluster, { resource: 'llmproxy', name: 'shared', namespace: ns }, { status: 'True' });
  const key = await readyWhen(cluster, { resource: 'apikey', name: 'app', namespace: ns }, { status: 'True' });
  const during = await traffic.stop();
  console.log(`# ${during.length} requests through the gateway while the proxy and the key were adopted`);
  assert.ok(during.length >= 3, `traffic flowed during the adoption (${during.length} requests)`);
  assert.deepEqual([...new Set(during)], [200], 'every request during the adoption was served');

  // Same id, same host, updated to the spec, marked as the object's.
  assert.equal(adopted.status.id, proxy.id);
  assert.equal(adopted.status.proxyHost, proxy.proxyHost);
  const remote = bodyOf(await api.call('GET /api/llm/:id', { params: { id: proxy.id } }));
  assert.equal(remote.name, `shared [k8s:${adopted.metadata.uid}]`);
  assert.deepEqual(remote.allowedModels, ['gpt-4o-mini']);
  assert.equal(bodyOf(await api.call('GET /api/llm')).proxies.length, 1, 'nothing was created');
  const events = JSON.parse(await cluster.ok(['get', 'events', '-n', ns, '-o', 'json'])) as { items: Array<{ reason: string; involvedObject: { name: string } }> };
  assert.ok(events.items.some((e) => e.reason === 'Adopted' && e.involvedObject.name === 'shared'));

  // The key: same id and plaintext; no Secret until a rotation, and the status says so.
  assert.equal(key.status.id, created.id);
  assert.equal(key.status.secretName, '');
  assert.match(condition(key, 'Ready')!.message, /^The adopted client key .* no Secret is written until a rotation \(annotate tollgate\.dev\/rotate\)$/);
  assert.equal(await secretKey(cluster, 'app', ns), undefined);
  assert.ok(bodyOf(await api.call('GET /api/keys/:id', { params: { id: created.id } })).tags.includes(`k8s:uid:${key.metadata.uid}`));
  assert.equal(await chatStatus(t.gateway, proxy.id, created.key), 200, 'traffic after the adoption');

  // A second object claiming the same ids is refused, naming the owner; deleting it leaves what it never owned.
  await cluster.ok(['apply', '-f', '-'], manifest(
    llmProxy('thief', { adoptId: proxy.id }),
    apiKey('thief', { adoptId: created.id, llmPermissions: [{ proxyRef: { name: 'shared' }, models: ['*'] }] }),
  ));
  const refusedProxy = await readyWhen(cluster, { resource: 'llmproxy', name: 'thief', namespace: ns }, { reason: 'AdoptionRefused' });
  assert.match(condition(refusedProxy, 'Ready')!.message, new RegExp(`^LLM proxy ${proxy.id} \\(spec.adoptId\\) is owned by LlmProxy ${ns}/shared with UID ${adopted.metadata.uid} `));
  const refusedKey = await readyWhen(cluster, { resource: 'apikey', name: 'thief', namespace: ns }, { reason: 'AdoptionRefused' });
  assert.match(condition(refusedKey, 'Ready')!.message, new RegExp(`^client key ${created.id} \\(spec.adoptId\\) is owned by ApiKey ${ns}/app \\(uid ${key.metadata.uid}\\)`));
  await cluster.ok(['delete', 'llmproxy,apikey', 'thief', '-n', ns, '--timeout=30s']);
  assert.equal(statusOf(await api.call('GET /api/llm/:id', { params: { id: proxy.id } })), 200);
  assert.equal(statusOf(await api.call('GET /api/keys/:id', { params: { id: created.id } })), 200);

  // A rotation gives the adopted key a Secret: a new key, the one made through REST deleted.
  await cluster.ok(['annotate', 'apikey', 'app', '-n', ns, 'tollgate.dev/rotate=1']);
  const rotated = await eventually(async () => {
    const o = await cluster.get('apikey', 'app', ns);
    return o.status.rotation === '1' && o.status.secretName === 'app' && condition(o, 'Ready')?.status === 'True' ? o : undefined;
  }, { ...WAIT, what: 'the adopted key rotated into a Secret' });
  const plaintext = (await secretKey(cluster, 'app', ns))!;
  assert.equal(await chatStatus(t.gateway, proxy.id, plaintext), 200);
  await eventually(async () => (await chatStatus(t.gateway, proxy.id, created.key)) === 401, { ...WAIT, what: 'the REST key retired' });

  // Orphan: kubectl delete leaves the proxy and the key, without the ownership marks, and the Secret with the plaintext.
  await cluster.ok(['delete', 'apikey', 'app', '-n', ns, '--timeout=30s']);
  await cluster.ok(['delete', 'llmproxy', 'shared', '-n', ns, '--timeout=30s']);
  const left = bodyOf(await api.call('GET /api/llm/:id', { params: { id: proxy.id } }));
  assert.equal(left.name, 'shared', 'the UID mark is gone, the rest as the spec left it');
  const leftKey = bodyOf(await api.call('GET /api/keys/:id', { params: { id: rotated.status.id } }));
  assert.ok(!leftKey.tags.some((tag) => tag.startsWith('k8s:')), `no operator tags are left: ${leftKey.tags.join(', ')}`);
  assert.ok(leftKey.tags.includes(`llm:${proxy.id}:model:*`), 'the permissions stay');
  const orphanSecret = await cluster.get('secret', 'app', ns);
  assert.equal(orphanSecret.metadata.ownerReferences, undefined, 'the Secret outlives its ApiKey');
  assert.equal(await chatStatus(t.gateway, proxy.id, plaintext), 200, 'traffic after the objects were deleted');

  // Adopted again: the orphaned proxy, and the key together with the Secret that holds its plaintext.
  await cluster.ok(['apply', '-f', '-'], manifest(
    llmProxy('again', { adoptId: proxy.id }),
    apiKey('app', { adoptId: rotated.status.id, llmPermissions: [{ proxyRef: { name: 'again' }, models: ['*'] }] }),
  ));
  const again = await readyWhen(cluster, { resource: 'llmproxy', name: 'again', namespace: ns }, { status: 'True' });
  assert.equal(again.status.id, proxy.id);
  const keyAgain = await readyWhen(cluster, { resource: 'apikey', name: 'app', namespace: ns }, { status: 'True' });
  assert.equal(keyAgain.status.id, rotated.status.id);
  assert.equal(keyAgain.status.secretName, 'app', 'the orphaned Secret was taken over: its plaintext is the adopted key\'s');
  assert.equal((await cluster.get('secret', 'app', ns)).metadata.ownerReferences[0].uid, keyAgain.metadata.uid);
  assert.equal(condition(keyAgain, 'Ready')?.message, 'Serving', 'an ordinary key now: the Secret holds its plaintext');

  // The default policy, Delete: deleting now removes the remote objects.
  await cluster.ok(['delete', 'apikey', 'app', '-n', ns, '--timeout=30s']);
  await cluster.ok(['delete', 'llmproxy', 'again', '-n', ns, '--timeout=30s']);
  assert.equal(statusOf(await api.call('GET /api/llm/:id', { params: { id: proxy.id } })), 404);
  assert.equal(statusOf(await api.call('GET /api/keys/:id', { params: { id: rotated.status.id } })), 404);
});

test('an id that does not exist for the connection\'s user is reported, and nothing is created', async () => {
  await cluster.ok(['apply', '-f', '-'], manifest(llmProxy('ghost', { adoptId: '00000000-0000-4000-8000-000000000000' })));
  const ghost = await readyWhen(cluster, { resource: 'llmproxy', name: 'ghost', namespace: ns }, { reason: 'AdoptionTargetMissing' });
  assert.match(condition(ghost, 'Ready')!.message, /^LLM proxy 00000000-0000-4000-8000-000000000000 \(spec.adoptId\) does not exist for the user of this object's connection$/);
  assert.equal(bodyOf(await api.call('GET /api/llm')).proxies.filter((p) => p.name.includes(ghost.metadata.uid)).length, 0);
});

test('an MCP server made through REST is adopted by an McpProxy: same id, host and catalog, the spec applied, calls served', async () => {
  const made = await createProxy(t, user, mcpUpstream.url);
  const original = bodyOf(await api.call('GET /api/mcp/:id', { params: { id: made.id } }));
  const c = await connect(t, made, { token: await createKey(t, made) });
  const call = async () => ((await c.client.callTool({ name: 'lookup', arguments: { word: 'a' } })) as { content: Array<{ text: string }> }).content[0]!.text;
  try {
    assert.equal(await call(), 'lookup ran');
    await cluster.ok(['apply', '-f', '-'], manifest({
      apiVersion: API_VERSION, kind: 'McpProxy', metadata: { name: 'dict', namespace: ns },
      spec: { url: mcpUpstream.url, adoptId: made.id, toolPinning: 'warn', deletionPolicy: 'Orphan' },
    }));
    const adopted = await readyWhen(cluster, { resource: 'mcpproxy', name: 'dict', namespace: ns }, { status: 'True' });
    assert.equal(adopted.status.id, made.id);
    assert.equal(adopted.status.proxyHost, original.proxyHost);
    const remote = bodyOf(await api.call('GET /api/mcp/:id', { params: { id: made.id } }));
    assert.equal(remote.name, `dict [k8s:${adopted.metadata.uid}]`);
    assert.equal(remote.toolPinning, 'warn', 'the spec was applied to the adopted server');
    assert.deepEqual(remote.tools.map((x) => [x.name, x.fingerprint]), original.tools.map((x) => [x.name, x.fingerprint]), 'the catalog is kept');
    assert.equal(bodyOf(await api.call('GET /api/mcp')).servers.filter((x) => x.url === mcpUpstream.url).length, 1, 'nothing was created');
    assert.equal(await call(), 'lookup ran', 'the session opened before the adoption still works');

    await cluster.ok(['delete', 'mcpproxy', 'dict', '-n', ns, '--timeout=30s']);
    assert.equal(bodyOf(await api.call('GET /api/mcp/:id', { params: { id: made.id } })).name, 'dict', 'Orphan: the server stays, without the UID mark');
    assert.equal(await call(), 'lookup ran');
  } finally {
    await c.close();
  }
});
