// API versions on a real API server (docs/kubernetes.md#api-versions-and-deprecation-policy): v1beta1 is stored,
// v1alpha1 is served with a deprecation warning naming v1beta1. An object written while v1alpha1 was the storage
// version (the CRDs of before, applied first) reads back as v1beta1 once the current CRDs are applied; one created
// as v1alpha1 is read and updated as v1beta1 and reconciled by the operator; kubectl explain shows the descriptions
// the CRDs carry from the contract.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { KIND_NAMES, type Kind } from '../../operator/src/kinds/specs.ts';
import { customResourceDefinition } from '../../operator/src/crds/crds.ts';
import {
  applyCrds, bodyOf, condition, connectedNamespace, manifest, startClusterWithApp, startOperator, type Cluster, type ClusterWithApp,
} from './kit.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const WAIT = { timeoutMs: 60_000, intervalMs: 250 };
const NS = 'versions';

let stack: ClusterWithApp;
let cluster: Cluster;

before(async () => {
  stack = await startClusterWithApp({ crds: false });
  cluster = stack.cluster;
});

after(async () => {
  await stack?.close();
});

/** The CRD as it was before v1beta1: v1alpha1 alone, served and stored, not deprecated. */
function crdBeforeV1beta1(kind: Kind): unknown {
  const crd = customResourceDefinition(kind) as { spec: { versions: Array<Record<string, unknown>> } };
  const old = crd.spec.versions.find((v) => v.name === 'v1alpha1')!;
  const { deprecated: _d, deprecationWarning: _w, ...rest } = old;
  return { ...crd, spec: { ...crd.spec, versions: [{ ...rest, storage: true }] } };
}

const llmProxy = (version: string, name: string, allowedModels: string[] = []) =>
  ({ apiVersion: `tollgate.dev/${version}`, kind: 'LlmProxy', metadata: { name, namespace: NS }, spec: { provider: 'openai', allowedModels } });

/** `kubectl get` of one LlmProxy through a given version of the API. */
const getAs = async (version: string, name: string) =>
  JSON.parse(await cluster.ok(['get', `llmproxies.${version}.tollgate.dev`, name, '-n', NS, '-o', 'json']));

test('an object stored while v1alpha1 was the storage version reads back as v1beta1 once the current CRDs are applied', async () => {
  await applyCrds(cluster, '-', manifest(...KIND_NAMES.map(crdBeforeV1beta1)));
  await connectedNamespace(stack, NS);
  const created = await cluster.kubectl(['apply', '-f', '-'], manifest(llmProxy('v1alpha1', 'stored-old', ['gpt-4o'])));
  assert.equal(created.code, 0, created.stderr);
  assert.doesNotMatch(created.stderr, /deprecated/, 'not deprecated yet');

  await applyCrds(cluster, join(root, 'crds'));
  const crd = JSON.parse(await cluster.ok(['get', 'crd', 'llmproxies.tollgate.dev', '-o', 'json']));
  assert.deepEqual([...crd.status.storedVersions].sort(), ['v1alpha1', 'v1beta1']);
  const read = await getAs('v1beta1', 'stored-old');
  assert.equal(read.apiVersion, 'tollgate.dev/v1beta1');
  assert.equal(read.spec.provider, 'openai');
  assert.deepEqual(read.spec.allowedModels, ['gpt-4o']);
  const plain = JSON.parse(await cluster.ok(['get', 'llmproxy', 'stored-old', '-n', NS, '-o', 'json']));
  assert.equal(plain.apiVersion, 'tollgate.dev/v1beta1', 'kubectl prefers v1beta1 without being told');

  // The migration the docs give: a no-op update writes the object again, in the storage version.
  const replaced = await cluster.kubectl(['replace', '-f', '-'], JSON.stringify(read));
  assert.equal(replaced.code, 0, replaced.stderr);
  assert.doesNotMatch(replaced.stderr, /deprecated/);
});

test('created as v1alpha1 with a Warning naming v1beta1, read and updated as v1beta1, reconciled by the operator', async () => {
  const created = await cluster.kubectl(['apply', '-f', '-'], manifest(llmProxy('v1alpha1', 'made-old', ['gpt-4o'])));
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stderr, /Warning: tollgate\.dev\/v1alpha1 LlmProxy is deprecated; use tollgate\.dev\/v1beta1 LlmProxy/);

  const read = await getAs('v1beta1', 'made-old');
  assert.equal(read.apiVersion, 'tollgate.dev/v1beta1');
  assert.deepEqual(read.spec.allowedModels, ['gpt-4o']);
  const updated = await cluster.kubectl(['apply', '-f', '-'], manifest(llmProxy('v1beta1', 'made-old', ['gpt-4o', 'gpt-4o-mini'])));
  assert.equal(updated.code, 0, updated.stderr);
  assert.doesNotMatch(updated.stderr, /deprecated/, 'v1beta1 is not deprecated');

  const op = await startOperator(cluster, { TOLLGATE_OPERATOR_LEASE_NAMESPACE: 'default', TOLLGATE_WATCH_NAMESPACE: NS });
  try {
    for (const name of ['made-old', 'stored-old']) {
      const o = await eventually(async () => {
        const x = await getAs('v1beta1', name);
        return condition(x, 'Ready')?.status === 'True' && x.status.observedGeneration === x.metadata.generation ? x : undefined;
      }, { ...WAIT, what: `${name} Ready` });
      const remote = bodyOf(await stack.api.call('GET /api/llm/:id', { params: { id: o.status.id } }));
      assert.deepEqual(remote.allowedModels, name === 'made-old' ? ['gpt-4o', 'gpt-4o-mini'] : ['gpt-4o'], name);
    }
  } finally {
    assert.equal(await op.stop(), 0);
  }
});

test('kubectl explain prints the description of a nested field, from the contract, in v1beta1', async () => {
  const explained = await eventually(async () => {
    const r = await cluster.kubectl(['explain', 'llmproxy.spec.budget.capUsd']);
    return r.code === 0 ? r.stdout : undefined;
  }, { ...WAIT, what: 'kubectl explain llmproxy.spec.budget.capUsd' });
  assert.match(explained, /VERSION:\s+v1beta1/);
  assert.match(explained, /Cap in USD for the window; 0 disables the cap/);
  const recursive = await cluster.ok(['explain', 'mcpproxy.spec', '--recursive']);
  for (const field of ['upstreamAuth', 'tokenSecretRef', 'discoverTools', 'resources']) assert.match(recursive, new RegExp(`\\b${field}\\b`));
});
