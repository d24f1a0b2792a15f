// The chart's third-party objects against a real API server (test/k8s/control-plane.sh) that has the Prometheus
// Operator's and the Gateway API's CRDs (test/helm/third-party-crds.sh, from their Go modules): `helm install` with
// ServiceMonitors, HTTPRoutes, the dashboard and NetworkPolicies, an upgrade to PodMonitors, the embedded trial by
// server-side dry run. The CRDs' OpenAPI schemas are the validation, and a broken object shows that they bite. Then
// every metric the Grafana dashboard queries is looked up in what a real gateway and a real operator serve.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp } from '@tollgate/testkit/harness.ts';
import { crdsEstablished, startCluster, startOperator, type Cluster } from '../k8s/kit.ts';
import { BASE, chart, helm, helmOk, KUBE_VERSION, parseManifests, root, setArgs, type K8sObject } from './kit.ts';

let cluster: Cluster;
const NS = 'tollgate';

/** The directory of the third-party CRDs (fetched from the Go module proxy the first time). */
function thirdPartyCrds(): string {
  const r = spawnSync('bash', [join(root, 'test', 'helm', 'third-party-crds.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`test/helm/third-party-crds.sh failed (exit ${r.status})`);
  return r.stdout.trim().split('\n').pop()!;
}

before(async () => {
  cluster = await startCluster();
  // Server-side apply: the HTTPRoute CRD is larger than the annotation client-side apply keeps.
  await cluster.ok(['apply', '--server-side', '-f', thirdPartyCrds()]);
  await cluster.ok(['apply', '-f', join(root, 'crds')]);
  await crdsEstablished(cluster);
  await cluster.ok(['create', 'namespace', NS]);
});
after(() => cluster?.close());

const ROUTES = {
  proxyDomain: 'proxy.example.com', 'httpRoute.enabled': true, 'httpRoute.apiHost': 'api.example.com', 'httpRoute.gatewayHosts': ['gateway.example.com'],
  'httpRoute.parentRefs': [{ name: 'shared', namespace: 'gateway-system', sectionName: 'https' }],
};
const EVERYTHING = {
  ...BASE, ...ROUTES, 'monitoring.serviceMonitor.enabled': true, 'monitoring.labels': { release: 'prometheus' }, 'monitoring.interval': '30s',
  'monitoring.relabelings': [{ action: 'replace', sourceLabels: ['__meta_kubernetes_pod_node_name'], targetLabel: 'node' }],
  'monitoring.dashboard.enabled': true, 'networkPolicy.enabled': true,
  'networkPolicy.metricsFrom': [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
  'image.digest': `sha256:${'ab'.repeat(32)}`,
};
const names = async (kinds: string) => (await cluster.ok(['get', kinds, '-n', NS, '-l', 'app.kubernetes.io/instance=tg', '-o', 'name'])).trim().split('\n').filter(Boolean).sort();

test('helm install with ServiceMonitors, HTTPRoutes, the dashboard and NetworkPolicies: the API server stores each object', async () => {
  const r = await helm(['install', 'tg', chart, '--namespace', NS, ...setArgs(EVERYTHING)], cluster.kubeconfig);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(await names('servicemonitors.monitoring.coreos.com,httproutes.gateway.networking.k8s.io,networkpolicies,poddisruptionbudgets,configmaps'), [
    'configmap/tg-tollgate-dashboard',
    'httproute.gateway.networking.k8s.io/tg-tollgate-api', 'httproute.gateway.networking.k8s.io/tg-tollgate-gateway',
    'networkpolicy.networking.k8s.io/tg-tollgate-api', 'networkpolicy.networking.k8s.io/tg-tollgate-gateway', 'networkpolicy.networking.k8s.io/tg-tollgate-operator',
    'poddisruptionbudget.policy/tg-tollgate-api', 'poddisruptionbudget.policy/tg-tollgate-gateway', 'poddisruptionbudget.policy/tg-tollgate-operator',
    'servicemonitor.monitoring.coreos.com/tg-tollgate-gateway', 'servicemonitor.monitoring.coreos.com/tg-tollgate-operator',
  ]);
  const sm = await cluster.get('servicemonitors.monitoring.coreos.com', 'tg-tollgate-gateway', NS);
  assert.deepEqual(sm.spec.endpoints[0], {
    port: 'admin', path: '/metrics', scheme: 'http', interval: '30s',
    relabelings: [{ action: 'replace', sourceLabels: ['__meta_kubernetes_pod_node_name'], targetLabel: 'node' }],
  }, 'stored as rendered: no field was pruned as unknown');
  const route = await cluster.get('httproutes.gateway.networking.k8s.io', 'tg-tollgate-gateway', NS);
  assert.deepEqual(route.spec.hostnames, ['*.proxy.example.com', 'gateway.example.com']);
  assert.equal(route.spec.rules[0].backendRefs[0].port, 8081);
  assert.ok(await cluster.get('service', 'tg-tollgate-operator-metrics', NS));
  const dashboard = await cluster.get('configmap', 'tg-tollgate-dashboard', NS);
  assert.equal(dashboard.metadata.labels.grafana_dashboard, '1');
  assert.equal(JSON.parse(dashboard.data['tollgate.json']).uid, 'tollgate-overview');
  const api = await cluster.get('deploy', 'tg-tollgate-api', NS);
  assert.match(api.spec.template.spec.containers[0].image, /^tollgate@sha256:(ab){32}$/);
});

test('the CRDs\' schemas bite: a ServiceMonitor, a PodMonitor or an HTTPRoute off their schema is refused', async () => {
  const rendered = parseManifests(await helmOk(['template', 'tg', chart, '--namespace', NS, '--kube-version', KUBE_VERSION, ...setArgs({ ...EVERYTHING, 'monitoring.serviceMonitor.enabled': false, 'monitoring.podMonitor.enabled': true })]));
  const pick = (kind: string) => structuredClone(rendered.find((o) => o.kind === kind && o.metadata.name === 'tg-tollgate-gateway')!);
  const dryRun = (o: K8sObject) => cluster.kubectl(['apply', '--dry-run=server', '-f', '-'], JSON.stringify(o));
  for (const kind of ['PodMonitor', 'HTTPRoute']) {
    const r = await dryRun(pick(kind));
    assert.equal(r.code, 0, `${kind} as rendered: ${r.stderr}`);
  }
  const pm = pick('PodMonitor');
  pm.spec.podMetricsEndpoints[0].scheme = 'gopher';
  assert.match((await dryRun(pm)).stderr, /scheme: Unsupported value: "gopher"/);
  const route = pick('HTTPRoute');
  route.spec.rules[0].backendRefs[0].port = 70000;
  assert.match((await dryRun(route)).stderr, /port: Invalid value: 70000/);
  const sm = structuredClone(await cluster.get('servicemonitors.monitoring.coreos.com', 'tg-tollgate-gateway', NS));
  delete sm.metadata.resourceVersion;
  sm.spec.endpoints[0].interval = 'every minute';
  assert.match((await dryRun(sm)).stderr, /interval: Invalid value: "every minute"/);
});

test('helm upgrade to PodMonitors: the ServiceMonitors go, the PodMonitors are stored', async () => {
  const r = await helm(['upgrade', 'tg', chart, '--namespace', NS, ...setArgs({ ...EVERYTHING, 'monitoring.serviceMonitor.enabled': false, 'monitoring.podMonitor.enabled': true })], cluster.kubeconfig);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(await names('servicemonitors.monitoring.coreos.com,podmonitors.monitoring.coreos.com'), [
    'podmonitor.monitoring.coreos.com/tg-tollgate-gateway', 'podmonitor.monitoring.coreos.com/tg-tollgate-operator',
  ]);
  const pm = await cluster.get('podmonitors.monitoring.coreos.com', 'tg-tollgate-operator', NS);
  assert.equal(pm.spec.podMetricsEndpoints[0].port, 'health');
  assert.equal(pm.metadata.labels.release, 'prometheus');
});

test('the embedded trial with a PodMonitor, HTTPRoutes and a NetworkPolicy passes a server-side dry run', async () => {
  await cluster.ok(['create', 'namespace', 'trial']);
  const out = await helmOk(['template', 'trial', chart, '--namespace', 'trial', '--kube-version', KUBE_VERSION, ...setArgs({ 'embedded.enabled': true, ...ROUTES, 'monitoring.podMonitor.enabled': true, 'networkPolicy.enabled': true, 'monitoring.dashboard.enabled': true })]);
  const r = await cluster.kubectl(['apply', '--dry-run=server', '-n', 'trial', '-f', '-'], out);
  assert.equal(r.code, 0, r.stderr);
  for (const made of ['podmonitor.monitoring.coreos.com/trial-tollgate-gateway', 'httproute.gateway.networking.k8s.io/trial-tollgate-api', 'networkpolicy.networking.k8s.io/trial-tollgate', 'configmap/trial-tollgate-dashboard']) {
    assert.match(r.stdout, new RegExp(`${made.replace(/\./g, '\\.')} created \\(server dry run\\)`));
  }
});

/** The sample names a /metrics text can carry: each family, and a histogram's _bucket, _sum and _count. */
function exported(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    out.add(m[1]!);
    if (m[2] === 'histogram') for (const s of ['_bucket', '_sum', '_count']) out.add(m[1]! + s);
    if (m[2] === 'summary') for (const s of ['_sum', '_count']) out.add(m[1]! + s);
  }
  return out;
}

test('every metric the Grafana dashboard queries is one a real gateway or operator serves at /metrics', async () => {
  const dash = JSON.parse(readFileSync(join(chart, 'dashboards', 'tollgate.json'), 'utf8'));
  const queries: string[] = [dash.templating.list[1].query.query];
  for (const p of dash.panels) for (const t of p.targets ?? []) queries.push(t.expr);
  const queried = new Set(queries.flatMap((q) => [...q.matchAll(/\btollgate_[a-z0-9_]+/g)].map((m) => m[0])));

  const t = await startTestApp();
  let gateway: string;
  try {
    const res = await fetch(`${t.app.gateway!.adminUrl}/metrics`);
    assert.equal(res.status, 200);
    gateway = await res.text();
  } finally {
    await t.close();
  }
  const operator = await startOperator(cluster, { TOLLGATE_OPERATOR_LEASE_NAMESPACE: NS });
  let operatorText: string;
  try {
    operatorText = await operator.metrics();
  } finally {
    await operator.stop();
  }
  const served = new Set([...exported(gateway), ...exported(operatorText)]);
  assert.ok(served.has('tollgate_gateway_responses_total') && served.has('tollgate_operator_reconcile_total'), 'both scrapes read');
  assert.deepEqual([...queried].filter((m) => !served.has(m)), [], 'queried by the dashboard but served by nobody');
  for (const family of ['tollgate_gateway_responses_total', 'tollgate_gateway_events_total', 'tollgate_gateway_upstream_response_seconds_bucket',
    'tollgate_gateway_budget_blocks_total', 'tollgate_gateway_config_version', 'tollgate_gateway_config_reloads_total', 'tollgate_gateway_runtime_builds_total', 'tollgate_operator_reconcile_total', 'tollgate_operator_reconcile_errors_total',
    'tollgate_operator_reconcile_duration_seconds_bucket', 'tollgate_operator_queue_depth', 'tollgate_operator_leader', 'tollgate_operator_watch_restarts_total']) {
    assert.ok(queried.has(family), `the dashboard shows ${family}`);
  }
});
