// charts/tollgate and charts/tollgate-crds through the real `helm`, without a cluster: lint, and `helm template` of
// the default values and of four other value sets, checked object by object; the refusals (the schema's messages,
// the chart's `fail`s); the CRD chart identical to crds/. install.test.ts applies the same renderings to a real API
// server; rbac.test.ts checks the operator's permissions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { parse } from 'yaml';
import { BASE, chart, crdChart, envOf, find, helm, helmOk, KUBE_VERSION, must, renderOffline, root, setArgs, VALUE_SETS, type K8sObject } from './kit.ts';


const deployments = (objs: K8sObject[]) => objs.filter((o) => o.kind === 'Deployment');
const kinds = (objs: K8sObject[]) => objs.map((o) => `${o.kind}/${o.metadata.name}`).sort();

test('helm lint passes for the default values and every value set', async () => {
  for (const [name, values] of Object.entries(VALUE_SETS)) {
    const r = await helm(['lint', chart, '--strict', '--kube-version', KUBE_VERSION, ...setArgs(values)]);
    assert.equal(r.code, 0, `${name}: ${r.stdout}${r.stderr}`);
  }
  // With no values at all lint passes too: helm lints in a mode where `fail` is only logged, and the chart fails
  // there by design (the next test).
  const bare = await helm(['lint', chart, '--strict', '--kube-version', KUBE_VERSION]);
  assert.equal(bare.code, 0, bare.stdout + bare.stderr);
  const crds = await helm(['lint', crdChart, '--strict', '--kube-version', KUBE_VERSION]);
  assert.equal(crds.code, 0, crds.stdout + crds.stderr);
});

test('without a datastore Secret the chart refuses to render and says why (several replicas need PostgreSQL and Redis)', async () => {
  const r = await helm(['template', 'tg', chart, '--kube-version', KUBE_VERSION]);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /datastore\.existingSecret is required: this chart runs the API and the gateway with several replicas, which share their state through PostgreSQL and Redis/);
  assert.match(r.stderr, /or set embedded\.enabled=true for a single-replica trial/);
});

test('the schema refuses bad values with its message, naming the value', async () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ 'gateway.replicas': -1 }, /at '\/gateway\/replicas': minimum: got -1, want 1/],
    [{ proxyDomain: 'https://proxy.example.com' }, /at '\/proxyDomain': '\S+' does not match pattern/],
    [{ 'gateway.publicHosts': ['gateway.example.com:443'] }, /at '\/gateway\/publicHosts\/0': '\S+' does not match pattern/],
    [{ 'image.pullPolicy': 'Sometimes' }, /at '\/image\/pullPolicy': value must be one of 'Always', 'IfNotPresent', 'Never'/],
    [{ 'gatway.replicas': 2 }, /additional properties 'gatway' not allowed/],
    [{ 'operator.watchNamespace': 'Apps' }, /at '\/operator\/watchNamespace'/],
  ];
  for (const [values, message] of cases) {
    const r = await helm(['template', 'tg', chart, '--kube-version', KUBE_VERSION, ...setArgs({ ...BASE, ...values })]);
    assert.notEqual(r.code, 0, JSON.stringify(values));
    assert.match(r.stderr, message, JSON.stringify(values));
  }
});

test('an Ingress needs the API host and a proxy domain of ours', async () => {
  const noHost = await helm(['template', 'tg', chart, '--kube-version', KUBE_VERSION, ...setArgs({ ...BASE, 'ingress.enabled': true, proxyDomain: 'proxy.example.com' })]);
  assert.match(noHost.stderr, /ingress\.apiHost is required with ingress\.enabled/);
  const localhost = await helm(['template', 'tg', chart, '--kube-version', KUBE_VERSION, ...setArgs({ ...BASE, 'ingress.enabled': true, 'ingress.apiHost': 'api.example.com' })]);
  assert.match(localhost.stderr, /proxyDomain is "proxy\.localhost" with ingress\.enabled/);
});

test('default values: API, gateway and operator Deployments, gateway HPA, PDBs, Services, operator RBAC, a generated master key', async () => {
  const objs = await renderOffline(VALUE_SETS.default!);
  assert.deepEqual(kinds(objs), [
    'ClusterRole/tg-tollgate-operator', 'ClusterRoleBinding/tg-tollgate-operator',
    'Deployment/tg-tollgate-api', 'Deployment/tg-tollgate-gateway', 'Deployment/tg-tollgate-operator',
    'HorizontalPodAutoscaler/tg-tollgate-gateway',
    'Pod/tg-tollgate-test-api-health',
    'PodDisruptionBudget/tg-tollgate-api', 'PodDisruptionBudget/tg-tollgate-gateway', 'PodDisruptionBudget/tg-tollgate-operator',
    'Role/tg-tollgate-operator-leader-election', 'RoleBinding/tg-tollgate-operator-leader-election',
    'Secret/tg-tollgate-master-key',
    'Service/tg-tollgate-api', 'Service/tg-tollgate-gateway', 'Service/tg-tollgate-gateway-admin', 'Service/tg-tollgate-operator-metrics',
    'ServiceAccount/tg-tollgate-operator',
  ]);
  const api = must(objs, 'Deployment', 'tg-tollgate-api');
  const gateway = must(objs, 'Deployment', 'tg-tollgate-gateway');
  const operator = must(objs, 'Deployment', 'tg-tollgate-operator');
  assert.deepEqual(api.spec.template.spec.containers[0].args, ['serve', '--role', 'api']);
  assert.deepEqual(gateway.spec.template.spec.containers[0].args, ['serve', '--role', 'gateway']);
  assert.deepEqual(operator.spec.template.spec.containers[0].args, ['operator']);
  const appVersion = readFileSync(join(chart, 'Chart.yaml'), 'utf8').match(/^appVersion:\s*"?([^"\s]+)/m)?.[1];
  assert.equal(api.spec.template.spec.containers[0].image, `tollgate:${appVersion}`, 'the tag defaults to the appVersion');
  assert.equal(api.spec.replicas, 2);
  assert.equal(gateway.spec.replicas, undefined, 'the HPA owns the gateway replica count');
  assert.equal(operator.spec.replicas, 2);

  const apiEnv = envOf(api);
  assert.equal(apiEnv.TOLLGATE_HOST, '0.0.0.0');
  assert.equal(apiEnv.DATABASE_URL, 'secret:tollgate-datastore/DATABASE_URL');
  assert.equal(apiEnv.REDIS_URL, 'secret:tollgate-datastore/REDIS_URL');
  assert.equal(apiEnv.TOLLGATE_MASTER_KEY, 'secret:tg-tollgate-master-key/masterKey');
  assert.equal(apiEnv.TOLLGATE_GATEWAY_ADMIN_URL, 'http://tg-tollgate-gateway-admin:8082');
  assert.equal(apiEnv.TOLLGATE_DATA_DIR, undefined, 'with PostgreSQL nothing needs a data dir');
  const gwEnv = envOf(gateway);
  assert.equal(gwEnv.TOLLGATE_GATEWAY_PUBLIC_HOSTS, 'tg-tollgate-gateway,tg-tollgate-gateway.tollgate,tg-tollgate-gateway.tollgate.svc,tg-tollgate-gateway.tollgate.svc.cluster.local');
  const opEnv = envOf(operator);
  assert.equal(opEnv.TOLLGATE_OPERATOR_HOST, '0.0.0.0');
  assert.equal(opEnv.TOLLGATE_OPERATOR_PORT, '8083');
  assert.equal(opEnv.POD_NAME, 'field:metadata.name');
  assert.equal(opEnv.POD_NAMESPACE, 'field:metadata.namespace');
  assert.equal(opEnv.TOLLGATE_OPERATOR_LEASE_NAMESPACE, 'tollgate');
  assert.equal(opEnv.TOLLGATE_WATCH_NAMESPACE, undefined, 'every namespace');
  assert.equal(operator.spec.template.spec.serviceAccountName, 'tg-tollgate-operator');
  assert.equal(operator.spec.template.spec.automountServiceAccountToken, true);
  for (const d of [api, gateway]) assert.equal(d.spec.template.spec.automountServiceAccountToken, false, `${d.metadata.name} needs no Kubernetes token`);

  const probe = (d: K8sObject, kind: 'livenessProbe' | 'readinessProbe') => d.spec.template.spec.containers[0][kind];
  assert.deepEqual(probe(api, 'readinessProbe').tcpSocket, { port: 'http' });
  assert.deepEqual(probe(gateway, 'livenessProbe').httpGet, { path: '/status', port: 'admin' });
  assert.deepEqual(probe(operator, 'livenessProbe').httpGet, { path: '/healthz', port: 'health' });
  assert.deepEqual(probe(operator, 'readinessProbe').httpGet, { path: '/readyz', port: 'health' });

  const hpa = must(objs, 'HorizontalPodAutoscaler', 'tg-tollgate-gateway');
  assert.equal(hpa.apiVersion, 'autoscaling/v2');
  assert.deepEqual(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'tg-tollgate-gateway' });
  assert.equal(hpa.spec.metrics[0].resource.name, 'cpu');
  assert.equal(must(objs, 'PodDisruptionBudget', 'tg-tollgate-gateway').spec.minAvailable, 1);

  const gwSvc = must(objs, 'Service', 'tg-tollgate-gateway');
  assert.deepEqual(gwSvc.spec.ports.map((p: { name: string }) => p.name), ['proxy'], 'the admin port stays off the public Service');
  const admin = must(objs, 'Service', 'tg-tollgate-gateway-admin');
  assert.equal(admin.spec.type, 'ClusterIP');

  const key = must(objs, 'Secret', 'tg-tollgate-master-key');
  assert.equal(key.metadata.annotations!['helm.sh/resource-policy'], 'keep');
  const master = Buffer.from(Buffer.from(key.data.masterKey, 'base64').toString('utf8'), 'base64');
  assert.equal(master.length, 32, 'TOLLGATE_MASTER_KEY is the base64 of 32 bytes');
  const again = must(await renderOffline(VALUE_SETS.default!), 'Secret', 'tg-tollgate-master-key');
  assert.notEqual(again.data.masterKey, key.data.masterKey, 'random on every render without a cluster (lookup keeps it on upgrade: install.test.ts)');
});

test('every pod runs as user 10001 on a read-only root filesystem, without privileges, with /tmp, resources and probes', async () => {
  for (const [name, values] of Object.entries(VALUE_SETS)) {
    const objs = await renderOffline(values);
    const pods = [...deployments(objs).map((d) => ({ name: d.metadata.name, spec: d.spec.template.spec })), ...objs.filter((o) => o.kind === 'Pod').map((p) => ({ name: p.metadata.name, spec: p.spec }))];
    assert.ok(pods.length >= 2, name);
    for (const { name: pod, spec } of pods) {
      const where = `${name}: ${pod}`;
      assert.equal(spec.securityContext.runAsNonRoot, true, where);
      assert.equal(spec.securityContext.runAsUser, 10001, where);
      assert.equal(spec.securityContext.fsGroup, 10001, where);
      assert.equal(spec.securityContext.seccompProfile.type, 'RuntimeDefault', where);
      for (const c of spec.containers) checkContainer(c, where, !pod.includes('test-'));
    }
  }
});

function checkContainer(c: K8sObject['spec'], where: string, long: boolean) {
  assert.equal(c.securityContext.readOnlyRootFilesystem, true, where);
  assert.equal(c.securityContext.allowPrivilegeEscalation, false, where);
  assert.deepEqual(c.securityContext.capabilities.drop, ['ALL'], where);
  assert.ok(c.resources.requests.cpu && c.resources.requests.memory && c.resources.limits.memory, `${where}: requests and limits`);
  if (!long) return; // the helm test pod runs once
  assert.ok(c.livenessProbe && c.readinessProbe, `${where}: probes`);
  assert.ok(c.volumeMounts.some((m: { mountPath: string }) => m.mountPath === '/tmp'), `${where}: /tmp`);
}

test('existing Secrets and an Ingress with TLS: the given keys, no generated key, the API host and *.<proxyDomain> routed', async () => {
  const objs = await renderOffline(VALUE_SETS['existing secrets, ingress with TLS']!);
  assert.equal(find(objs, 'Secret', 'tg-tollgate-master-key'), undefined, 'no generated key beside an existing one');
  const env = envOf(must(objs, 'Deployment', 'tg-tollgate-gateway'));
  assert.equal(env.DATABASE_URL, 'secret:tollgate-secrets/pg-url');
  assert.equal(env.REDIS_URL, 'secret:tollgate-secrets/redis-url');
  assert.equal(env.TOLLGATE_MASTER_KEY, 'secret:tollgate-secrets/master-key');
  assert.equal(env.TOLLGATE_PROXY_DOMAIN, 'proxy.example.com');
  assert.equal(env.TOLLGATE_AUDIT_RETENTION_DAYS, '90', 'extraEnv');
  assert.equal(envOf(must(objs, 'Deployment', 'tg-tollgate-api')).TOLLGATE_AUDIT_RETENTION_DAYS, '90');
  assert.deepEqual(env.TOLLGATE_GATEWAY_PUBLIC_HOSTS!.split(',').slice(4), ['gateway.example.com', '*.ai.example.com']);
  const ing = must(objs, 'Ingress', 'tg-tollgate');
  assert.equal(ing.spec.ingressClassName, 'nginx');
  const routes = ing.spec.rules.map((r: { host: string; http: { paths: Array<{ backend: { service: { name: string; port: { name: string } } } }> } }) =>
    `${r.host} -> ${r.http.paths[0]!.backend.service.name}:${r.http.paths[0]!.backend.service.port.name}`);
  assert.deepEqual(routes, ['api.example.com -> tg-tollgate-api:http', '*.proxy.example.com -> tg-tollgate-gateway:proxy', 'gateway.example.com -> tg-tollgate-gateway:proxy']);
  assert.deepEqual(ing.spec.tls, [{ secretName: 'tollgate-tls', hosts: ['api.example.com', '*.proxy.example.com', 'gateway.example.com'] }]);
});

test('embedded trial: one `serve` replica on a volume, no datastore URLs, no HPA or PDB of its own; the Services select it', async () => {
  const objs = await renderOffline(VALUE_SETS['embedded trial']!);
  assert.deepEqual(deployments(objs).map((d) => d.metadata.name).sort(), ['tg-tollgate', 'tg-tollgate-operator']);
  const d = must(objs, 'Deployment', 'tg-tollgate');
  assert.equal(d.spec.replicas, 1);
  assert.equal(d.spec.strategy.type, 'Recreate', 'the embedded database belongs to one process at a time');
  assert.deepEqual(d.spec.template.spec.containers[0].args, ['serve']);
  const env = envOf(d);
  assert.equal(env.TOLLGATE_DATA_DIR, '/data');
  assert.equal(env.DATABASE_URL, undefined);
  assert.equal(env.REDIS_URL, undefined);
  assert.equal(d.spec.template.spec.volumes.find((v: { name: string }) => v.name === 'data').persistentVolumeClaim.claimName, 'tg-tollgate-data');
  assert.ok(find(objs, 'PersistentVolumeClaim', 'tg-tollgate-data'));
  assert.deepEqual(objs.filter((o) => o.kind === 'HorizontalPodAutoscaler' || o.kind === 'PodDisruptionBudget').map((o) => o.metadata.name), ['tg-tollgate-operator'], 'only the operator has a budget');
  for (const svc of ['tg-tollgate-api', 'tg-tollgate-gateway', 'tg-tollgate-gateway-admin']) {
    assert.equal(must(objs, 'Service', svc).spec.selector['app.kubernetes.io/component'], 'server', svc);
  }
  const ephemeral = await renderOffline({ ...VALUE_SETS['embedded trial'], 'embedded.persistence.enabled': false });
  assert.equal(find(ephemeral, 'PersistentVolumeClaim', 'tg-tollgate-data'), undefined);
  assert.deepEqual(must(ephemeral, 'Deployment', 'tg-tollgate').spec.template.spec.volumes.find((v: { name: string }) => v.name === 'data').emptyDir, {});
});

test('a namespace-scoped operator gets a Role there; HPA and PDB off leave the gateway at its replica count', async () => {
  const objs = await renderOffline(VALUE_SETS['namespace-scoped operator, no HPA, no PDB']!);
  assert.equal(objs.some((o) => o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding'), false);
  const role = must(objs, 'Role', 'tg-tollgate-operator');
  assert.equal(role.metadata.namespace, 'apps');
  const binding = must(objs, 'RoleBinding', 'tg-tollgate-operator');
  assert.equal(binding.metadata.namespace, 'apps');
  assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'tg-tollgate-operator', namespace: 'tollgate' }]);
  assert.equal(must(objs, 'Role', 'tg-tollgate-operator-leader-election').metadata.namespace, 'tollgate', 'the Lease lives beside the operator');
  assert.equal(envOf(must(objs, 'Deployment', 'tg-tollgate-operator')).TOLLGATE_WATCH_NAMESPACE, 'apps');
  assert.equal(must(objs, 'Deployment', 'tg-tollgate-gateway').spec.replicas, 3);
  assert.equal(objs.some((o) => o.kind === 'HorizontalPodAutoscaler' || (o.kind === 'PodDisruptionBudget' && o.metadata.name === 'tg-tollgate-gateway')), false);
});

test('operator.allowedApiUrls: by default this release\'s API Service and the Ingress\'s API host; a list replaces them; the schema refuses what the operator would', async () => {
  const allowed = async (values: Record<string, unknown>) => envOf(must(await renderOffline(values), 'Deployment', 'tg-tollgate-operator')).TOLLGATE_OPERATOR_ALLOWED_API_URLS;
  assert.equal(await allowed(VALUE_SETS.default!),
    'http://tg-tollgate-api:8080,http://tg-tollgate-api.tollgate:8080,http://tg-tollgate-api.tollgate.svc:8080,http://tg-tollgate-api.tollgate.svc.cluster.local:8080');
  assert.equal((await allowed({ ...VALUE_SETS['existing secrets, ingress with TLS']!, 'api.service.port': 80 })),
    'http://tg-tollgate-api:80,http://tg-tollgate-api.tollgate:80,http://tg-tollgate-api.tollgate.svc:80,http://tg-tollgate-api.tollgate.svc.cluster.local:80,https://api.example.com');
  assert.equal(await allowed({ ...BASE, 'operator.allowedApiUrls': ['https://tollgate.internal.example/api-v1', 'http://10.0.0.5:8080'] }), 'https://tollgate.internal.example/api-v1,http://10.0.0.5:8080');
  assert.equal(await allowed({ ...BASE, 'operator.allowedApiUrls': ['*'] }), '*');
  for (const bad of [['api.example.com'], ['https://api.example.com/?x=1'], ['https://user@api.example.com'], ['*', 'https://api.example.com']]) {
    const r = await helm(['template', 'tg', chart, '--kube-version', KUBE_VERSION, ...setArgs({ ...BASE, 'operator.allowedApiUrls': bad })]);
    assert.notEqual(r.code, 0, JSON.stringify(bad));
    assert.match(r.stderr, /at '\/operator\/allowedApiUrls/, JSON.stringify(bad));
  }
});

test('without the operator: no operator Deployment, ServiceAccount or RBAC', async () => {
  const objs = await renderOffline(VALUE_SETS['without the operator']!);
  assert.deepEqual(objs.filter((o) => /operator/.test(o.metadata.name)).map((o) => o.kind), []);
});

test('the helm test hook calls GET /api/health through the API Service (with a PAT when one is given)', async () => {
  const hook = (objs: K8sObject[]) => must(objs, 'Pod', 'tg-tollgate-test-api-health');
  const plain = hook(await renderOffline(BASE));
  assert.equal(plain.metadata.annotations!['helm.sh/hook'], 'test');
  const c = plain.spec.containers[0];
  assert.deepEqual(c.command, ['node', '--input-type=module', '-e']);
  assert.equal(c.env.find((e: { name: string }) => e.name === 'HEALTH_URL').value, 'http://tg-tollgate-api:8080/api/health');
  assert.match(c.args[0], /res\.status === 401 && body\?\.error === 'Not authenticated'/);
  assert.match(c.args[0], /res\.status === 200 && body\?\.overall === 'operational'/);
  assert.equal(c.env.some((e: { name: string }) => e.name === 'TOLLGATE_PAT'), false);
  const withPat = hook(await renderOffline({ ...BASE, 'tests.patSecret': 'ci-pat' })).spec.containers[0];
  assert.deepEqual(withPat.env.find((e: { name: string }) => e.name === 'TOLLGATE_PAT').valueFrom.secretKeyRef, { name: 'ci-pat', key: 'token' });
});

test('the script of the helm test hook passes and fails as it says, against a stand-in API', async () => {
  // The hook runs in a pod, which needs a kubelet; its script runs here with node against a server that answers
  // like the API does (401 without a PAT, 200 operational with one).
  let degraded = false;
  const server = createServer((req, res) => {
    const ok = req.headers.authorization === 'Bearer svc_pat_good';
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { overall: degraded ? 'degraded' : 'operational', services: [] } : { error: 'Not authenticated' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  // eslint-disable-next-line no-restricted-syntax -- the hook's HEALTH_URL: the script under test calls it itself
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/health`;
  const script = must(await renderOffline(BASE), 'Pod', 'tg-tollgate-test-api-health').spec.containers[0].args[0] as string;
  // Asynchronous: spawnSync would block the event loop that serves the stand-in.
  const run = (env: Record<string, string>) => new Promise<number>((resolve) => {
    spawn(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH, HEALTH_URL: url, ...env }, stdio: 'ignore' })
      .on('exit', (code) => resolve(code ?? 1));
  });
  try {
    assert.equal(await run({}), 0, 'no PAT: 401 Not authenticated passes');
    assert.equal(await run({ TOLLGATE_PAT: 'svc_pat_good' }), 0, 'a PAT: 200 operational passes');
    assert.equal(await run({ TOLLGATE_PAT: 'svc_pat_bad' }), 1, 'a refused PAT fails');
    degraded = true;
    assert.equal(await run({ TOLLGATE_PAT: 'svc_pat_good' }), 1, 'degraded fails');
  } finally {
    server.close();
  }
});

test('charts/tollgate-crds/files are byte for byte crds/ (npm run gen writes both; `npm run build` checks them)', () => {
  const generated = readdirSync(join(root, 'crds')).filter((f) => f.endsWith('.yaml')).sort();
  assert.deepEqual(readdirSync(join(crdChart, 'files')).sort(), generated);
  for (const f of generated) {
    assert.ok(readFileSync(join(root, 'crds', f)).equals(readFileSync(join(crdChart, 'files', f))), `${f} differs: run npm run gen`);
  }
});

test('the CRD chart renders each CRD of crds/ unchanged but for its labels and the keep policy', async () => {
  const render = async (values: Record<string, unknown>) => parseCrds(await helmOk(['template', 'crds', crdChart, '--kube-version', KUBE_VERSION, ...setArgs(values)]));
  const kept = await render({});
  const files = readdirSync(join(root, 'crds')).filter((f) => f.endsWith('.yaml')).sort();
  assert.deepEqual(kept.map((o) => o.metadata.name).sort(), files.map((f) => f.replace(/\.yaml$/, '')));
  for (const crd of kept) {
    const file = parse(readFileSync(join(root, 'crds', `${crd.metadata.name}.yaml`), 'utf8')) as K8sObject;
    assert.equal(crd.metadata.annotations!['helm.sh/resource-policy'], 'keep');
    assert.equal(crd.metadata.labels!['app.kubernetes.io/part-of'], 'tollgate');
    const { labels: _l, annotations: _a, ...meta } = crd.metadata;
    assert.deepEqual({ ...crd, metadata: meta }, file, crd.metadata.name);
  }
  for (const crd of await render({ keep: false })) assert.equal(crd.metadata.annotations, undefined);
});

function parseCrds(text: string): K8sObject[] {
  return text.split(/^---$/m).map((d) => parse(d) as K8sObject | null).filter((o): o is K8sObject => !!o);
}
