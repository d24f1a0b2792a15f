// The charts against a real API server (test/k8s/control-plane.sh): every value set of chart.test.ts accepted by
// `kubectl apply --dry-run=server`, `helm install` of the CRD chart and of the chart, `kubectl get` of what they made,
// `helm upgrade` with a changed value and the generated master key unchanged, the operator's permissions asked of the
// API server (`kubectl auth can-i`), and uninstall leaving the master key and the CRDs behind.
// There is no kubelet: Pods stay Pending, so nothing here waits for a rollout, and `helm test` (a Pod) cannot run;
// chart.test.ts runs the test hook's script instead.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { crdsEstablished, startCluster, type Cluster } from '../k8s/kit.ts';
import { BASE, chart, crdChart, helm, helmOk, setArgs, VALUE_SETS } from './kit.ts';
import { USES } from './operator-uses.ts';

let cluster: Cluster;
const NS = 'tollgate';
const SA = `system:serviceaccount:${NS}:tg-tollgate-operator`;

before(async () => {
  cluster = await startCluster();
  await cluster.ok(['create', 'namespace', NS]);
  await cluster.ok(['create', 'namespace', 'apps']);
  await cluster.ok(['create', 'secret', 'generic', 'tollgate-datastore', '-n', NS,
    '--from-literal=DATABASE_URL=postgres://tollgate@postgres.db:5432/tollgate', '--from-literal=REDIS_URL=redis://redis.db:6379']);
});
after(() => cluster?.close());

const install = (release: string, chartDir: string, namespace: string, values: Record<string, unknown>) =>
  helm(['install', release, chartDir, '--namespace', namespace, ...setArgs(values)], cluster.kubeconfig);
const masterKey = async () => (await cluster.get('secret', 'tg-tollgate-master-key', NS))?.data?.masterKey as string | undefined;

test('before the CRD chart, NOTES say the CRDs are missing', async () => {
  await cluster.ok(['create', 'namespace', 'early']);
  await cluster.ok(['create', 'secret', 'generic', 'tollgate-datastore', '-n', 'early', '--from-literal=DATABASE_URL=postgres://x@y/z', '--from-literal=REDIS_URL=redis://y']);
  const r = await install('early', chart, 'early', BASE);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /WARNING: the CRDs are not installed/);
  await helmOk(['uninstall', 'early', '-n', 'early'], cluster.kubeconfig);
});

test('helm install tollgate-crds creates the four CRDs, labelled and kept on uninstall', async () => {
  const r = await install('tollgate-crds', crdChart, NS, {});
  assert.equal(r.code, 0, r.stderr);
  const names = (await cluster.ok(['get', 'crd', '-l', 'app.kubernetes.io/part-of=tollgate', '-o', 'name'])).trim().split('\n').sort();
  assert.deepEqual(names, ['apikeys', 'llmproxies', 'mcpproxies', 'rulesets'].map((p) => `customresourcedefinition.apiextensions.k8s.io/${p}.tollgate.dev`));
  const crd = await cluster.get('crd', 'mcpproxies.tollgate.dev', '');
  assert.equal(crd.metadata.annotations['helm.sh/resource-policy'], 'keep');
  assert.equal(crd.metadata.labels['app.kubernetes.io/managed-by'], 'Helm');
  // Established: the API server serves the kind.
  await crdsEstablished(cluster, { name: 'mcpproxies.tollgate.dev' }, 30_000);
  assert.equal((await cluster.ok(['get', 'mcpproxies', '-A', '-o', 'name'])).trim(), '');
});

test('every value set passes helm template --validate and kubectl apply --dry-run=server against the API server', async () => {
  for (const [name, values] of Object.entries(VALUE_SETS)) {
    // --validate: helm checks the objects against the cluster (and takes its version for kubeVersion).
    const text = await helmOk(['template', 'tg', chart, '--namespace', NS, '--validate', ...setArgs(values)], cluster.kubeconfig);
    const r = await cluster.kubectl(['apply', '--dry-run=server', '-f', '-'], text);
    assert.equal(r.code, 0, `${name}:\n${r.stderr}`);
    assert.match(r.stdout, /deployment\.apps\/tg-tollgate(-api)? created \(server dry run\)/, name);
  }
});

test('an existing Secret without the named key is refused at install, naming the key', async () => {
  await cluster.ok(['create', 'namespace', 'bad']);
  await cluster.ok(['create', 'secret', 'generic', 'tollgate-datastore', '-n', 'bad', '--from-literal=DATABASE_URL=postgres://x@y/z']);
  const r = await install('tg', chart, 'bad', BASE);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /the Secret tollgate-datastore has no key REDIS_URL/);
});

test('helm install: the Deployments, Services, HPA, PDB, ServiceAccount, RBAC and the generated master key exist', async () => {
  const r = await install('tg', chart, NS, BASE);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /kubectl exec -n tollgate deploy\/tg-tollgate-api -- tollgate admin user create --email you@example\.com/);
  assert.match(r.stdout, /tollgate admin token issue --email you@example\.com/);
  assert.doesNotMatch(r.stdout, /CRDs are not installed/);
  const got = (await cluster.ok(['get', 'deploy,svc,sa,hpa,pdb,role,rolebinding,secret', '-n', NS, '-l', 'app.kubernetes.io/instance=tg', '-o', 'name'])).trim().split('\n').sort();
  assert.deepEqual(got, [
    'deployment.apps/tg-tollgate-api', 'deployment.apps/tg-tollgate-gateway', 'deployment.apps/tg-tollgate-operator',
    'horizontalpodautoscaler.autoscaling/tg-tollgate-gateway',
    'poddisruptionbudget.policy/tg-tollgate-api', 'poddisruptionbudget.policy/tg-tollgate-gateway', 'poddisruptionbudget.policy/tg-tollgate-operator',
    'role.rbac.authorization.k8s.io/tg-tollgate-operator-leader-election',
    'rolebinding.rbac.authorization.k8s.io/tg-tollgate-operator-leader-election',
    'secret/tg-tollgate-master-key',
    'service/tg-tollgate-api', 'service/tg-tollgate-gateway', 'service/tg-tollgate-gateway-admin', 'service/tg-tollgate-operator-metrics',
    'serviceaccount/tg-tollgate-operator',
  ].sort());
  const cluster_ = (await cluster.ok(['get', 'clusterrole,clusterrolebinding', '-l', 'app.kubernetes.io/instance=tg', '-o', 'name'])).trim().split('\n').sort();
  assert.deepEqual(cluster_, ['clusterrole.rbac.authorization.k8s.io/tg-tollgate-operator', 'clusterrolebinding.rbac.authorization.k8s.io/tg-tollgate-operator']);
  const key = await masterKey();
  assert.equal(Buffer.from(Buffer.from(key!, 'base64').toString('utf8'), 'base64').length, 32);
  const api = await cluster.get('deploy', 'tg-tollgate-api', NS);
  assert.equal(api.spec.replicas, 2);
});

test('helm upgrade with a changed value: applied, and the master key is the same', async () => {
  const before = await masterKey();
  const r = await helm(['upgrade', 'tg', chart, '--namespace', NS, ...setArgs({ ...BASE, 'api.replicas': 3, 'gateway.autoscaling.maxReplicas': 6 })], cluster.kubeconfig);
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await cluster.get('deploy', 'tg-tollgate-api', NS)).spec.replicas, 3);
  assert.equal((await cluster.get('hpa', 'tg-tollgate-gateway', NS)).spec.maxReplicas, 6);
  assert.equal(await masterKey(), before, 'lookup found the Secret and rendered the same key');
  const history = JSON.parse(await helmOk(['history', 'tg', '-n', NS, '-o', 'json'], cluster.kubeconfig)) as Array<{ revision: number; status: string }>;
  assert.deepEqual(history.map((h) => [h.revision, h.status]), [[1, 'superseded'], [2, 'deployed']]);
});

/** `kubectl auth can-i` as the operator's ServiceAccount: "yes" or "no". */
async function canI(verb: string, resource: string, namespace: string, subresource?: string): Promise<string> {
  const r = await cluster.kubectl(['auth', 'can-i', verb, resource, '-n', namespace, '--as', SA, ...(subresource ? ['--subresource', subresource] : [])]);
  return r.stdout.trim();
}

test('the API server grants the operator its USES and refuses what it does not use', async () => {
  const asks: Array<[string, string, string, string | undefined, string]> = [];
  for (const u of USES) {
    for (const res of u.resources) {
      const [plural, sub] = res.split('/') as [string, string | undefined];
      const resource = u.group ? `${plural}.${u.group}` : plural;
      const named = u.lease && u.verb !== 'create' ? `${resource}/tollgate-operator` : resource;
      asks.push([u.verb, named, u.lease ? NS : 'apps', sub, 'yes']);
    }
  }
  asks.push(
    ['list', 'secrets', 'apps', undefined, 'no'], ['watch', 'secrets', 'apps', undefined, 'no'], ['delete', 'secrets', 'apps', undefined, 'no'],
    ['get', 'mcpproxies.tollgate.dev', 'apps', undefined, 'no'], ['create', 'mcpproxies.tollgate.dev', 'apps', undefined, 'no'],
    ['update', 'mcpproxies.tollgate.dev', 'apps', undefined, 'no'], ['delete', 'apikeys.tollgate.dev', 'apps', undefined, 'no'],
    ['update', 'mcpproxies.tollgate.dev', 'apps', 'status', 'no'],
    ['get', 'leases.coordination.k8s.io/someone-else', NS, undefined, 'no'], ['update', 'leases.coordination.k8s.io/tollgate-operator', 'apps', undefined, 'no'],
    ['delete', 'leases.coordination.k8s.io/tollgate-operator', NS, undefined, 'no'],
    ['get', 'configmaps', 'apps', undefined, 'no'], ['create', 'pods', 'apps', undefined, 'no'], ['list', 'namespaces', '', undefined, 'no'],
    ['get', 'customresourcedefinitions.apiextensions.k8s.io', '', undefined, 'no'],
  );
  const answers: string[] = [];
  for (let i = 0; i < asks.length; i += 6) {
    const batch = asks.slice(i, i + 6);
    answers.push(...await Promise.all(batch.map(([v, r, ns, sub]) => canI(v, r, ns, sub))));
  }
  const wrong = asks.map((a, i) => ({ ask: `${a[0]} ${a[1]}${a[3] ? `/${a[3]}` : ''} -n ${a[2] || '-'}`, want: a[4], got: answers[i] })).filter((x) => x.want !== x.got);
  assert.deepEqual(wrong, []);
});

test('uninstall leaves the master key behind, and a reinstall of the release adopts it with the same key', async () => {
  const key = await masterKey();
  await helmOk(['uninstall', 'tg', '-n', NS], cluster.kubeconfig);
  assert.equal(await cluster.get('deploy', 'tg-tollgate-api', NS), undefined);
  assert.equal(await cluster.get('clusterrole', 'tg-tollgate-operator', ''), undefined);
  assert.equal(await masterKey(), key, 'helm.sh/resource-policy: keep');
  const r = await install('tg', chart, NS, BASE);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(await masterKey(), key);
});

test('uninstalling the CRD chart leaves the CRDs (and every object of their kinds) in place', async () => {
  await helmOk(['uninstall', 'tollgate-crds', '-n', NS], cluster.kubeconfig);
  assert.ok(await cluster.get('crd', 'apikeys.tollgate.dev', ''));
});
