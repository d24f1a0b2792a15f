// The operator under faults, on a real Kubernetes API server: killed in the middle of creating (a restart adopts
// instead of duplicating), two replicas (only the Lease holder acts; a standby takes over on SIGTERM and after a
// SIGKILL once the Lease expires), and watches that expire (410 Gone after etcd compaction) or go quiet.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiClient } from '@tollgate/contract';
import { eventually } from '@tollgate/testkit/eventually.ts';
import {
  bodyOf, condition, connectedNamespace, manifest, startClusterWithApp, startOperator, type Cluster, type ClusterWithApp, type OperatorProcess,
} from './kit.ts';

const WAIT = { timeoutMs: 60_000, intervalMs: 250 };

let stack: ClusterWithApp;
let cluster: Cluster;
let api: ApiClient;
const operators: OperatorProcess[] = [];

before(async () => {
  // The tests here make more LLM proxies than the default quota of 10 (the quota has its own tests).
  stack = await startClusterWithApp({ userTags: ['private:permissions:llm:limit:1000'] });
  ({ cluster, api } = stack);
});

after(async () => {
  await stopAll();
  await stack?.close();
});

/** Each test starts from no operator running (a failed test may have left its replicas). */
const stopAll = () => Promise.all(operators.splice(0).map((o) => o.stop('SIGKILL')));

async function operator(env: Record<string, string> = {}): Promise<OperatorProcess> {
  const o = await startOperator(cluster, { TOLLGATE_OPERATOR_LEASE_NAMESPACE: 'default', TOLLGATE_OPERATOR_LEASE_S: '4', ...env });
  operators.push(o);
  return o;
}

const namespace = (ns: string) => connectedNamespace(stack, ns);
/** The remote LLM proxies of the test's user. */
const remoteProxies = async () => bodyOf(await api.call('GET /api/llm')).proxies;

const llmProxy = (ns: string, name: string) => ({ apiVersion: 'tollgate.dev/v1beta1', kind: 'LlmProxy', metadata: { name, namespace: ns }, spec: { provider: 'openai' } });
const apiKey = (ns: string, name: string, proxy: string) => ({ apiVersion: 'tollgate.dev/v1beta1', kind: 'ApiKey', metadata: { name, namespace: ns }, spec: { llmPermissions: [{ proxyRef: { name: proxy }, models: ['*'] }] } });

/** An object of our kinds as these tests read it: names, Ready, and the status fields they look at. */
interface Listed {
  metadata: { name: string; uid: string };
  status: { id: string; secretVersion?: string; conditions?: Array<{ type: string; status: string; reason: string; message: string }> };
}

async function allReady(resource: string, ns: string, count: number): Promise<Listed[]> {
  return eventually(async () => {
    const items = JSON.parse(await cluster.ok(['get', resource, '-n', ns, '-o', 'json'])).items as Listed[];
    return items.length === count && items.every((o) => condition(o, 'Ready')?.status === 'True') ? items : undefined;
  }, { ...WAIT, what: `${count} ${resource} Ready in ${ns}` });
}

const holder = async () => (await cluster.get('lease', 'tollgate-operator', 'default'))?.spec?.holderIdentity as string | undefined;

test('an operator killed in the middle of creating leaves no duplicate after its restart', async () => {
  const ns = 'crash';
  await stopAll();
  await namespace(ns);
  const first = await operator();
  const n = 8;
  await cluster.ok(['apply', '-f', '-'], manifest(...Array.from({ length: n }, (_, i) => llmProxy(ns, `p${i}`)), ...Array.from({ length: n }, (_, i) => apiKey(ns, `k${i}`, `p${i}`))));
  // Killed as soon as the first remote object exists: some creates have happened, most statuses are not written.
  await eventually(async () => (await remoteProxies()).some((p) => / \[k8s:/.test(p.name)), { ...WAIT, intervalMs: 20, what: 'the first remote proxy' });
  await first.stop('SIGKILL');
  const remoteBefore = (await remoteProxies()).length;

  await operator();
  const proxies = await allReady('llmproxies', ns, n);
  const keys = await allReady('apikeys', ns, n);
  const remote = await remoteProxies();
  for (const p of proxies) {
    const mine = remote.filter((r) => r.name.endsWith(`[k8s:${p.metadata.uid}]`));
    assert.deepEqual(mine.map((r) => r.id), [p.status.id], `exactly one remote proxy for ${p.metadata.name}`);
  }
  const remoteKeys = bodyOf(await api.call('GET /api/keys')).keys;
  for (const k of keys) {
    const mine = remoteKeys.filter((r) => r.tags.includes(`k8s:uid:${k.metadata.uid}`));
    assert.deepEqual(mine.map((r) => r.id), [k.status.id], `exactly one remote key for ${k.metadata.name}`);
    const secret = await cluster.get('secret', k.metadata.name, ns);
    assert.equal(secret.metadata.annotations['tollgate.dev/key-id'], k.status.id, 'the Secret holds the key the status names');
  }
  assert.ok(remoteBefore >= 1);
  await Promise.all(operators.splice(0).map((o) => o.stop()));
});

test('of two replicas only the Lease holder reconciles; the standby takes over on SIGTERM and after a SIGKILL', async () => {
  const ns = 'replicas';
  await stopAll();
  await namespace(ns);
  const a = await operator({ POD_NAME: 'replica-a' });
  await eventually(async () => (await a.metric('tollgate_operator_leader')) === 1, { ...WAIT, what: 'replica-a leading' });
  const b = await operator({ POD_NAME: 'replica-b' });
  await cluster.ok(['apply', '-f', '-'], manifest(llmProxy(ns, 'one')));
  await allReady('llmproxies', ns, 1);
  assert.equal(await holder(), 'replica-a');
  assert.equal(await b.metric('tollgate_operator_leader'), 0);
  assert.equal(await b.metric('tollgate_operator_reconcile_total', '{kind="LlmProxy",result="synced"}'), 0, 'the standby reconciled nothing');
  assert.ok((await a.metric('tollgate_operator_reconcile_total', '{kind="LlmProxy",result="synced"}')) >= 1);
  assert.equal((await fetch(`http://127.0.0.1:${b.port}/readyz`)).status, 200, 'a standby is ready (to take over)');

  // SIGTERM: the leader releases the Lease on its way out; the standby leads within a retry period or two.
  const t0 = Date.now();
  assert.equal(await a.stop('SIGTERM'), 0);
  await eventually(async () => (await b.metric('tollgate_operator_leader')) === 1, { ...WAIT, what: 'replica-b leading' });
  const takeoverMs = Date.now() - t0;
  await cluster.ok(['apply', '-f', '-'], manifest(llmProxy(ns, 'two')));
  await allReady('llmproxies', ns, 2);
  assert.equal(await holder(), 'replica-b');
  console.log(`# standby took over ${takeoverMs} ms after the leader's SIGTERM`);

  // SIGKILL: no release; a third replica waits for the Lease to expire (4 s here), then leads.
  const c = await operator({ POD_NAME: 'replica-c' });
  await b.stop('SIGKILL');
  await eventually(async () => (await c.metric('tollgate_operator_leader')) === 1, { ...WAIT, what: 'replica-c leading after the Lease expired' });
  await cluster.ok(['apply', '-f', '-'], manifest(llmProxy(ns, 'three')));
  await allReady('llmproxies', ns, 3);
  await Promise.all(operators.splice(0).map((o) => o.stop()));
});

test('watches that expire (410 Gone) or go quiet are reopened without losing a change', async () => {
  const ns = 'watches';
  await stopAll();
  await namespace(ns);
  // Short watches: each reopens from its last resourceVersion, which etcd compaction (every 10 s on the test API
  // server) soon removes, so reopening answers 410 and the informer relists. A 2 s stall timer reopens quiet ones.
  const o = await operator({ TOLLGATE_OPERATOR_WATCH_TIMEOUT_S: '1', TOLLGATE_OPERATOR_WATCH_STALL_S: '2', TOLLGATE_OPERATOR_RESYNC_S: '3600' });
  await eventually(async () => (await o.metric('tollgate_operator_leader')) === 1, { ...WAIT, what: 'leading' });
  // Other objects change meanwhile, so the revision moves past our kinds' last resourceVersion.
  let churn = true;
  const churner = (async () => {
    for (let i = 0; churn; i++) await cluster.kubectl(['create', 'configmap', `c${i}`, '-n', ns, '--from-literal=i=1']);
  })();
  try {
    await eventually(async () => (await o.metric('tollgate_operator_watch_restarts_total', '{kind="LlmProxy",reason="gone"}')) >= 1, { ...WAIT, timeoutMs: 90_000, what: 'a 410 Gone relist' });
    await eventually(async () => (await o.metric('tollgate_operator_watch_restarts_total', '{kind="ApiKey",reason="stalled"}'))
      + (await o.metric('tollgate_operator_watch_restarts_total', '{kind="ApiKey",reason="closed"}')) >= 2, { ...WAIT, what: 'quiet watches reopened' });
    await cluster.ok(['apply', '-f', '-'], manifest(llmProxy(ns, 'after-gone')));
    await allReady('llmproxies', ns, 1);
    // A deletion while the watches churn is seen too (by the watch, or by the relist's diff against the cache).
    await cluster.ok(['delete', 'llmproxy', 'after-gone', '-n', ns, '--wait=false']);
    await eventually(async () => (await cluster.kubectl(['get', 'llmproxy', 'after-gone', '-n', ns])).code !== 0, { ...WAIT, what: 'the finalizer done' });
    assert.equal((await remoteProxies()).filter((p) => p.name.startsWith('after-gone')).length, 0);
  } finally {
    churn = false;
    await churner;
  }
  await o.stop();
});

test('TOLLGATE_WATCH_NAMESPACE narrows the operator to one namespace', async () => {
  await stopAll();
  await namespace('watched');
  await namespace('ignored');
  const o = await operator({ TOLLGATE_WATCH_NAMESPACE: 'watched' });
  await eventually(async () => (await o.metric('tollgate_operator_leader')) === 1, { ...WAIT, what: 'leading' });
  await cluster.ok(['apply', '-f', '-'], manifest(llmProxy('watched', 'seen'), llmProxy('ignored', 'unseen')));
  await allReady('llmproxies', 'watched', 1);
  const unseen = await cluster.get('llmproxy', 'unseen', 'ignored');
  assert.equal(unseen.status, undefined, 'an object outside the namespace gets no status');
  assert.equal(unseen.metadata.finalizers, undefined, 'nor a finalizer');
  assert.equal((await remoteProxies()).filter((p) => p.name.endsWith(`[k8s:${unseen.metadata.uid}]`)).length, 0);
  await o.stop();
});

test('a changed Secret is sent again within the poll interval, long before the resync', async () => {
  await stopAll();
  const ns = 'secret-poll';
  await namespace(ns);
  const o = await operator({ TOLLGATE_OPERATOR_RESYNC_S: '3600', TOLLGATE_OPERATOR_SECRET_POLL_S: '1' });
  await eventually(async () => (await o.metric('tollgate_operator_leader')) === 1, { ...WAIT, what: 'leading' });
  await cluster.ok(['apply', '-f', '-'], manifest(
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'provider', namespace: ns }, stringData: { key: 'sk-first' } },
    { apiVersion: 'tollgate.dev/v1beta1', kind: 'LlmProxy', metadata: { name: 'p', namespace: ns }, spec: { provider: 'openai', providerKeySecretRef: { name: 'provider', key: 'key' } } },
  ));
  const [p] = await allReady('llmproxies', ns, 1);
  const first = p!.status.secretVersion;
  await cluster.ok(['apply', '-f', '-'], manifest({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'provider', namespace: ns }, stringData: { key: 'sk-second' } }));
  const rv = JSON.parse(await cluster.ok(['get', 'secret', 'provider', '-n', ns, '-o', 'json'])).metadata.resourceVersion as string;
  const updated = await eventually(async () => {
    const o2 = await cluster.get('llmproxy', 'p', ns);
    return o2.status.secretVersion === `provider@${rv}` ? o2 : undefined;
  }, { ...WAIT, timeoutMs: 20_000, what: 'the new key sent (status.secretVersion)' });
  assert.notEqual(updated.status.secretVersion, first);
  const events = JSON.parse(await cluster.ok(['get', 'events', '-n', ns, '-o', 'json'])).items as Array<{ reason: string; message: string }>;
  assert.ok(events.some((e) => e.reason === 'Updated' && e.message.includes('provider key')), 'an Updated event names the provider key');
  await o.stop();
});
