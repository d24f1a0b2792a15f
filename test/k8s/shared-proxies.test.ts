// Shared proxies across namespaces on a real Kubernetes API server: a platform namespace owns an LlmProxy and grants
// it to application namespaces (spec.grants); ApiKeys there reference it by namespace and name, and their keys are
// made through the platform's connection (its user), with the Secret in the application namespace. A namespace
// without the grant is refused, a grant added later lets it in, and a grant revoked deletes the key, which the
// gateway then refuses, with the reason in the ApiKey's status (docs/kubernetes.md#shared-proxies-across-namespaces).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiClient } from '@tollgate/contract';
import type { TestApp } from '@tollgate/testkit/harness.ts';
import type { FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { API_VERSION } from '../../operator/src/kinds/specs.ts';
import {
  bodyOf, chatStatus, condition, connectedNamespace, manifest, readyWhen, secretKey, startLlmOperatorStack, statusOf,
  type Cluster, type LlmOperatorStack, type OperatorProcess,
} from './kit.ts';

const WAIT = { timeoutMs: 45_000, intervalMs: 200 };

let stack: LlmOperatorStack;
let cluster: Cluster;
let t: TestApp;
let api: ApiClient;
let openai: FakeProvider;
let operator: OperatorProcess;

before(async () => {
  stack = await startLlmOperatorStack();
  ({ cluster, t, api, openai, operator } = stack);
});

after(() => stack?.close());

const llmRef = { name: 'openai', namespace: 'platform' };
const keyObject = (namespace: string) => ({
  apiVersion: API_VERSION, kind: 'ApiKey', metadata: { name: 'app', namespace },
  spec: { llmPermissions: [{ proxyRef: llmRef, models: ['*'] }], llmBudgets: [{ proxyRef: llmRef, period: 'daily', capUsd: 3 }] },
});
const setGrants = (...namespaces: string[]) => cluster.ok(['patch', 'llmproxy', 'openai', '-n', 'platform', '--type=merge', '-p',
  JSON.stringify({ spec: { grants: namespaces.map((namespace) => ({ namespace })) } })]);
const keysOfPlatformUser = async () => bodyOf(await api.call('GET /api/keys')).keys;

test('a granted namespace gets a key made through the platform\'s connection; an ungranted one is refused until granted; revoking deletes the key', async () => {
  // The platform: its connection (the platform user's PAT), the provider key and the proxy, granted to app-a only.
  await connectedNamespace(stack, 'platform', t.api,
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'provider', namespace: 'platform' }, stringData: { key: openai.providerKey } },
    { apiVersion: API_VERSION, kind: 'LlmProxy', metadata: { name: 'openai', namespace: 'platform' }, spec: { provider: 'openai', providerKeySecretRef: { name: 'provider', key: 'key' }, grants: [{ namespace: 'app-a' }] } });
  // app-a's own connection is another user's: the key must not be made there. app-b has no connection at all.
  const appUser = await t.createUser();
  await cluster.ok(['apply', '-f', '-'], manifest(
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'app-a' } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tollgate-connection', namespace: 'app-a' }, stringData: { url: t.api, token: appUser.pat } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'app-b' } },
    keyObject('app-a'), keyObject('app-b'),
  ));
  const proxy = await readyWhen(cluster, { resource: 'llmproxy', name: 'openai', namespace: 'platform' }, { status: 'True' });
  const proxyId = proxy.status.id as string;

  // app-a: Ready, the key is the platform user's, its Secret is in app-a and carries traffic; the per-key budget is set.
  const a = await readyWhen(cluster, { resource: 'apikey', name: 'app', namespace: 'app-a' }, { status: 'True' });
  assert.equal(a.status.connection, 'platform/tollgate-connection');
  assert.ok((await keysOfPlatformUser()).some((k) => k.id === a.status.id), 'the key belongs to the proxy owner\'s user');
  assert.equal(bodyOf(await t.client(appUser.pat).call('GET /api/keys')).keys.length, 0, 'nothing was made through app-a\'s own connection');
  const keyA = await secretKey(cluster, 'app', 'app-a');
  assert.ok(keyA, 'the plaintext is in a Secret of the application namespace');
  assert.equal(await chatStatus(t.gateway, proxyId, keyA), 200);
  const budget = bodyOf(await api.call('GET /api/llm/:id/keys/:credId/budget', { params: { id: proxyId, credId: a.status.id } }));
  assert.equal(budget.budget?.capUsd, 3);

  // app-b: refused, naming the proxy and the missing grant; nothing remote, no Secret.
  const b = await readyWhen(cluster, { resource: 'apikey', name: 'app', namespace: 'app-b' }, { reason: 'ReferenceNotGranted' });
  assert.equal(condition(b, 'Ready')?.status, 'False');
  assert.equal(condition(b, 'Ready')?.message, 'LlmProxy platform/openai (llmPermissions) does not grant namespace app-b: its spec.grants needs {namespace: app-b}');
  assert.equal(await secretKey(cluster, 'app', 'app-b'), undefined);
  assert.ok(!(await keysOfPlatformUser()).some((k) => k.tags.includes(`k8s:uid:${b.metadata.uid}`)), 'no key was made for the ungranted namespace');

  // Granting app-b requeues its key at once (the proxy's change wakes the ApiKeys that name it).
  const granted = Date.now();
  await setGrants('app-a', 'app-b');
  await readyWhen(cluster, { resource: 'apikey', name: 'app', namespace: 'app-b' }, { status: 'True' }, 20_000);
  console.log(`# a grant added reached the waiting ApiKey in ${Date.now() - granted} ms`);
  const keyB = await secretKey(cluster, 'app', 'app-b');
  assert.equal(await chatStatus(t.gateway, proxyId, keyB!), 200);

  // Revoking app-a: its remote key is deleted (the gateway refuses it), its Secret emptied, and the status says why.
  await setGrants('app-b');
  const revoked = await readyWhen(cluster, { resource: 'apikey', name: 'app', namespace: 'app-a' }, { reason: 'ReferenceNotGranted' }, 20_000);
  assert.match(condition(revoked, 'Ready')!.message, new RegExp(`^LlmProxy platform/openai \\(llmPermissions\\) does not grant namespace app-a: .*; the client key made through connection Secret platform/tollgate-connection \\(${a.status.id}\\) was deleted and Secret app emptied$`));
  assert.equal(revoked.status.id, '');
  assert.equal(revoked.status.connection, '');
  assert.equal(statusOf(await api.call('GET /api/keys/:id', { params: { id: a.status.id } })), 404);
  assert.equal(await secretKey(cluster, 'app', 'app-a'), undefined, 'the plaintext is gone from the Secret');
  await eventually(async () => (await chatStatus(t.gateway, proxyId, keyA)) === 401, { ...WAIT, what: 'the gateway refusing the revoked key' });
  const events = JSON.parse(await cluster.ok(['get', 'events', '-n', 'app-a', '-o', 'json'])) as { items: Array<{ reason: string; message: string }> };
  assert.ok(events.items.some((e) => e.reason === 'ReferenceNotGranted' && e.message.includes('was deleted')), 'a Warning Event tells the application team');
  assert.equal(await chatStatus(t.gateway, proxyId, keyB!), 200, 'the other namespace keeps working');
  // A later reconcile (any annotation change makes one) keeps saying why the key went.
  const waited = () => operator.metric('tollgate_operator_reconcile_errors_total', '{kind="ApiKey",reason="ReferenceNotGranted"}');
  const before = await waited();
  await cluster.ok(['annotate', 'apikey', 'app', '-n', 'app-a', 'example.com/touched=1']);
  await eventually(async () => (await waited()) > before, { ...WAIT, what: 'another reconcile of the refused key' });
  assert.equal(condition(await cluster.get('apikey', 'app', 'app-a'), 'Ready')?.message, condition(revoked, 'Ready')?.message);

  // Granted again: a new key in the same Secret.
  await setGrants('app-a', 'app-b');
  const again = await readyWhen(cluster, { resource: 'apikey', name: 'app', namespace: 'app-a' }, { status: 'True' }, 20_000);
  assert.notEqual(again.status.id, a.status.id);
  assert.equal(await chatStatus(t.gateway, proxyId, (await secretKey(cluster, 'app', 'app-a'))!), 200);

  // Deleting an ApiKey deletes its key through the connection it was made through (app-b has none of its own).
  const bKey = (await cluster.get('apikey', 'app', 'app-b')).status.id as string;
  await cluster.ok(['delete', 'apikey', 'app', '-n', 'app-b', '--timeout=30s']);
  assert.equal(statusOf(await api.call('GET /api/keys/:id', { params: { id: bKey } })), 404);
});

test('a grant lets a namespace use a shared proxy, not adopt the proxy owner\'s keys', async () => {
  const platformKey = bodyOf(await api.call('POST /api/keys', { body: { name: 'platform-own' } })).key;
  await cluster.ok(['apply', '-f', '-'], manifest({ ...keyObject('app-a'), metadata: { name: 'taker', namespace: 'app-a' }, spec: { ...keyObject('app-a').spec, adoptId: platformKey.id } }));
  const taker = await readyWhen(cluster, { resource: 'apikey', name: 'taker', namespace: 'app-a' }, { reason: 'AdoptionRefused' });
  assert.match(condition(taker, 'Ready')!.message, /through connection Secret platform\/tollgate-connection of another namespace/);
  const untouched = bodyOf(await api.call('GET /api/keys/:id', { params: { id: platformKey.id } }));
  assert.ok(!untouched.tags.some((tag) => tag.startsWith('k8s:')), 'the platform\'s key was not marked');
});

test('a key may not mix proxies reached through two connections', async () => {
  await cluster.ok(['apply', '-f', '-'], manifest(
    { apiVersion: API_VERSION, kind: 'LlmProxy', metadata: { name: 'local', namespace: 'app-a' }, spec: { provider: 'openai' } },
    { apiVersion: API_VERSION, kind: 'ApiKey', metadata: { name: 'mixed', namespace: 'app-a' }, spec: { llmPermissions: [{ proxyRef: { name: 'local' }, models: ['*'] }, { proxyRef: llmRef, models: ['*'] }] } },
  ));
  const mixed = await readyWhen(cluster, { resource: 'apikey', name: 'mixed', namespace: 'app-a' }, { reason: 'MixedConnections' });
  assert.match(condition(mixed, 'Ready')!.message, /^LlmProxy app-a\/local is reached through connection Secret app-a\/tollgate-connection and LlmProxy platform\/openai through platform\/tollgate-connection: one client key belongs to one Tollgate user/);
});
