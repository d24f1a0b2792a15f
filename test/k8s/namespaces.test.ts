// Watched namespaces on a real API server (docs/kubernetes.md#watched-namespaces), with the operator running as a
// ServiceAccount whose rights are exactly what the chart renders (helm template, applied): a list of namespaces
// with Roles only, and a label selector with Namespaces watched cluster-wide and RoleBindings in the namespaces.
// Objects in watched namespaces reconcile, objects elsewhere are untouched, a namespace labelled while the operator
// runs is picked up and one unlabelled is dropped, and `kubectl auth can-i` shows no Secret access elsewhere.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { BASE, envOf, must, renderOffline } from '../helm/kit.ts';
import {
  bodyOf, condition, connectedNamespace, manifest, serviceAccountKubeconfig, startClusterWithApp, startOperator,
  type Cluster, type ClusterWithApp, type OperatorProcess,
} from './kit.ts';

const WAIT = { timeoutMs: 60_000, intervalMs: 250 };
const RELEASE_NS = 'tollgate';
const RBAC_KINDS = new Set(['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']);
/** The operator's variables the chart sets that these tests keep (the API URL allow-list names in-cluster Services). */
const KEPT_ENV = /^TOLLGATE_(WATCH_NAMESPACES?|WATCH_NAMESPACE_SELECTOR|OPERATOR_LEASE_NAME|OPERATOR_LEASE_NAMESPACE)$/;

let stack: ClusterWithApp;
let cluster: Cluster;
let dir: string;
let operator: OperatorProcess | undefined;

before(async () => {
  stack = await startClusterWithApp({ userTags: ['private:permissions:llm:limit:1000'] });
  cluster = stack.cluster;
  dir = mkdtempSync(join(tmpdir(), 'tollgate-namespaces-'));
  await cluster.ok(['create', 'namespace', RELEASE_NS]);
});

after(async () => {
  await operator?.stop('SIGKILL');
  await stack?.close();
});

/**
 * Renders the chart as release `release` with `values`, applies its operator ServiceAccount and RBAC, and starts the
 * operator with that ServiceAccount's token and the chart's watch and Lease variables.
 */
async function operatorAsChartRenders(release: string, values: Record<string, unknown>): Promise<{ op: OperatorProcess; sa: string }> {
  const objs = await renderOffline({ ...BASE, ...values, 'operator.leaseName': `${release}-lease` }, { release, namespace: RELEASE_NS });
  const sa = `${release}-tollgate-operator`;
  const rbac = objs.filter((o) => RBAC_KINDS.has(o.kind) && o.metadata.name.startsWith(sa));
  await cluster.ok(['apply', '-f', '-'], manifest(...rbac));
  const env = Object.fromEntries(Object.entries(envOf(must(objs, 'Deployment', sa))).filter(([k]) => KEPT_ENV.test(k)));
  const kubeconfig = await serviceAccountKubeconfig(cluster, RELEASE_NS, sa, dir);
  const op = await startOperator(cluster, { ...env, KUBECONFIG: kubeconfig, TOLLGATE_OPERATOR_LEASE_S: '4', POD_NAME: `${release}-0` });
  operator = op;
  await eventually(async () => (await op.metric('tollgate_operator_leader')) === 1, { ...WAIT, what: 'the operator leading' });
  return { op, sa };
}

const llmProxy = (ns: string, name: string) => ({ apiVersion: 'tollgate.dev/v1beta1', kind: 'LlmProxy', metadata: { name, namespace: ns }, spec: { provider: 'openai' } });

const ready = (ns: string, name: string) => eventually(async () => {
  const o = await cluster.get('llmproxy', name, ns);
  return condition(o, 'Ready')?.status === 'True' ? o : undefined;
}, { ...WAIT, what: `llmproxy ${ns}/${name} Ready` });

/** Neither status nor finalizer, and no remote proxy with its UID: the operator never acted on it. */
async function assertUntouched(ns: string, name: string): Promise<void> {
  const o = await cluster.get('llmproxy', name, ns);
  assert.equal(o.status, undefined, `${ns}/${name} has no status`);
  assert.equal(o.metadata.finalizers, undefined, `${ns}/${name} has no finalizer`);
  const remote = bodyOf(await stack.api.call('GET /api/llm')).proxies;
  assert.equal(remote.filter((p) => p.name.endsWith(`[k8s:${o.metadata.uid}]`)).length, 0, `${ns}/${name} has no remote proxy`);
}

/** `kubectl auth can-i VERB RESOURCE` as the ServiceAccount, in a namespace or (undefined) cluster-wide. */
async function canI(sa: string, verb: string, resource: string, ns?: string): Promise<string> {
  const r = await cluster.kubectl(['auth', 'can-i', verb, resource, ...(ns ? ['-n', ns] : ['--all-namespaces']), '--as', `system:serviceaccount:${RELEASE_NS}:${sa}`]);
  return r.stdout.trim();
}

async function assertCanI(sa: string, asks: Array<[verb: string, resource: string, ns: string | undefined, want: string]>): Promise<void> {
  const got = await Promise.all(asks.map(([verb, resource, ns]) => canI(sa, verb, resource, ns)));
  const wrong = asks.map((a, i) => ({ ask: `${a[0]} ${a[1]} -n ${a[2] ?? '(all)'}`, want: a[3], got: got[i] })).filter((x) => x.want !== x.got);
  assert.deepEqual(wrong, []);
}

test('a list of namespaces: Roles there only; objects in them reconcile, elsewhere untouched, no cluster-scope request', async () => {
  for (const ns of ['list-a', 'list-b', 'list-other']) await connectedNamespace(stack, ns);
  const { op, sa } = await operatorAsChartRenders('tgl', { 'operator.watchNamespaces': ['list-a', 'list-b'] });
  await cluster.ok(['apply', '-f', '-'], manifest(llmProxy('list-a', 'p'), llmProxy('list-b', 'p'), llmProxy('list-other', 'p')));
  await ready('list-a', 'p');
  await ready('list-b', 'p');
  await assertUntouched('list-other', 'p');
  assert.match(op.logs(), /"namespaces":"list-a,list-b"/, 'the start line names the watched namespaces');
  // Every request the operator made was allowed: it never asked for anything cluster-wide.
  assert.doesNotMatch(op.logs(), /forbidden|\b403\b/i);
  await assertCanI(sa, [
    ['get', 'secrets', 'list-a', 'yes'], ['get', 'secrets', 'list-b', 'yes'], ['get', 'secrets', 'list-other', 'no'],
    ['list', 'llmproxies.tollgate.dev', 'list-a', 'yes'], ['list', 'llmproxies.tollgate.dev', 'list-other', 'no'],
    ['list', 'llmproxies.tollgate.dev', undefined, 'no'], ['get', 'secrets', undefined, 'no'], ['list', 'namespaces', undefined, 'no'],
  ]);
  assert.equal(await op.stop(), 0);
  operator = undefined;
});

test('a namespace selector: a namespace labelled while the operator runs is reconciled, one unlabelled is dropped', async () => {
  const label = 'tollgate.dev/watch';
  for (const ns of ['sel-a', 'sel-b', 'sel-other']) await connectedNamespace(stack, ns);
  await cluster.ok(['label', 'namespace', 'sel-a', `${label}=yes`]);
  const { op, sa } = await operatorAsChartRenders('tgs', {
    'operator.watchNamespaceSelector': `${label}=yes`, 'operator.rbac.selectorNamespaces': ['sel-a', 'sel-b'],
  });
  const pid = op.child.pid;
  await cluster.ok(['apply', '-f', '-'], manifest(llmProxy('sel-a', 'p'), llmProxy('sel-b', 'p'), llmProxy('sel-other', 'p')));
  await ready('sel-a', 'p');
  await assertUntouched('sel-b', 'p');

  await cluster.ok(['label', 'namespace', 'sel-b', `${label}=yes`]);
  await ready('sel-b', 'p');
  assert.equal(op.child.pid, pid, 'picked up without a restart');
  assert.equal(op.child.exitCode, null);

  await cluster.ok(['label', 'namespace', 'sel-a', `${label}-`]);
  await eventually(async () => /stopped watching a namespace[^\n]*"namespace":"sel-a"/.test(op.logs()), { ...WAIT, what: 'sel-a dropped' });
  // A change in sel-b is seen; the one made in sel-a at the same time is not.
  await cluster.ok(['apply', '-f', '-'], manifest(llmProxy('sel-a', 'late'), llmProxy('sel-b', 'late')));
  await ready('sel-b', 'late');
  await assertUntouched('sel-a', 'late');
  const kept = await cluster.get('llmproxy', 'p', 'sel-a');
  assert.equal(condition(kept, 'Ready')?.status, 'True', 'objects of a dropped namespace are left as they are');
  assert.deepEqual(kept.metadata.finalizers, ['tollgate.dev/cleanup']);
  await assertUntouched('sel-other', 'p');

  assert.doesNotMatch(op.logs(), /forbidden|\b403\b/i);
  await assertCanI(sa, [
    ['get', 'secrets', 'sel-a', 'yes'], ['get', 'secrets', 'sel-b', 'yes'], ['get', 'secrets', 'sel-other', 'no'],
    ['get', 'secrets', undefined, 'no'], ['list', 'llmproxies.tollgate.dev', undefined, 'no'],
    ['list', 'namespaces', undefined, 'yes'], ['watch', 'namespaces', undefined, 'yes'], ['get', 'namespaces', undefined, 'no'],
  ]);
  assert.equal(await op.stop(), 0);
  operator = undefined;
});
