// What cluster operators expect of charts/tollgate beyond running Tollgate, through the real `helm template`: the
// image by digest, the extension points of every workload, disruption budgets, the Prometheus Operator monitors and
// the Grafana dashboard's ConfigMap, the NetworkPolicies and the Gateway API routes; values.schema.json covering
// every value. monitoring.test.ts has the API server accept the third-party kinds and checks the dashboard's metrics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { parseCidr, parseIp } from '@tollgate/contract';
import { blockedRange } from '@tollgate/server/src/net/ip-ranges.ts';
import { BASE, chart, envOf, find, helm, KUBE_VERSION, must, renderOffline, setArgs, type K8sObject } from './kit.ts';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const WORKLOADS = ['api', 'gateway', 'operator'] as const;
const podSpec = (d: K8sObject) => d.spec.template.spec;
const container = (d: K8sObject) => podSpec(d).containers[0];

async function refused(values: Record<string, unknown>): Promise<string> {
  const r = await helm(['template', 'tg', chart, '--kube-version', KUBE_VERSION, ...setArgs(values)]);
  assert.notEqual(r.code, 0, `rendered although it should not: ${JSON.stringify(values)}`);
  return r.stderr;
}

test('image.digest pins every workload to repository@digest, whatever the tag; the schema takes sha256 digests only', async () => {
  const tagged = await renderOffline({ ...BASE, 'image.repository': 'registry.example.com/tollgate', 'image.tag': '9.9.9' });
  for (const w of WORKLOADS) assert.equal(container(must(tagged, 'Deployment', `tg-tollgate-${w}`)).image, 'registry.example.com/tollgate:9.9.9');
  const pinned = await renderOffline({ ...BASE, 'image.repository': 'registry.example.com/tollgate', 'image.tag': '9.9.9', 'image.digest': DIGEST });
  for (const w of WORKLOADS) assert.equal(container(must(pinned, 'Deployment', `tg-tollgate-${w}`)).image, `registry.example.com/tollgate@${DIGEST}`, w);
  const trial = await renderOffline({ 'embedded.enabled': true, 'image.digest': DIGEST });
  assert.equal(container(must(trial, 'Deployment', 'tg-tollgate')).image, `tollgate@${DIGEST}`);
  assert.match(await refused({ ...BASE, 'image.digest': 'sha256:abc' }), /at '\/image\/digest': '\S+' does not match pattern/);
  assert.match(await refused({ ...BASE, 'image.digest': `${DIGEST.slice(0, -1)}G` }), /at '\/image\/digest'/);
});

/** The extension values of one component, made distinct by its name. */
function extensions(w: string): Record<string, unknown> {
  return {
    [`${w}.podLabels`]: { team: `team-${w}`, 'app.kubernetes.io/component': 'hijacked' },
    [`${w}.podAnnotations`]: { 'example.com/owner': w },
    [`${w}.extraEnv`]: [{ name: `EXTRA_${w.toUpperCase()}`, value: w }, { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: `${w}-extra`, key: 'k' } } }],
    [`${w}.extraEnvFrom`]: [{ configMapRef: { name: `${w}-config` } }],
    [`${w}.extraVolumes`]: [{ name: 'ca', configMap: { name: `${w}-ca` } }],
    [`${w}.extraVolumeMounts`]: [{ name: 'ca', mountPath: '/etc/ssl/extra', readOnly: true }],
    [`${w}.nodeSelector`]: { pool: w },
    [`${w}.tolerations`]: [{ key: 'dedicated', operator: 'Equal', value: w, effect: 'NoSchedule' }],
    [`${w}.affinity`]: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: [w] }] }] } } },
    [`${w}.topologySpreadConstraints`]: [{ maxSkew: 2, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { team: `team-${w}` } } }],
    [`${w}.priorityClassName`]: `prio-${w}`,
  };
}

test('every workload takes pod labels and annotations, extra env, envFrom, volumes and mounts, and its own placement', async () => {
  const objs = await renderOffline({ ...BASE, ...Object.assign({}, ...WORKLOADS.map(extensions)), podLabels: { cost: 'shared', team: 'global' } });
  for (const w of WORKLOADS) {
    const d = must(objs, 'Deployment', `tg-tollgate-${w}`);
    const meta = d.spec.template.metadata;
    assert.equal(meta.labels.team, `team-${w}`, `${w}: the component's podLabels win over the chart-wide ones`);
    assert.equal(meta.labels.cost, 'shared', `${w}: chart-wide podLabels`);
    assert.equal(meta.labels['app.kubernetes.io/component'], w, `${w}: the chart's own labels cannot be replaced (the selector needs them)`);
    for (const [k, v] of Object.entries(d.spec.selector.matchLabels)) assert.equal(meta.labels[k], v, `${w}: the selector still matches the pods`);
    assert.deepEqual(meta.annotations, { 'example.com/owner': w });
    const env = envOf(d);
    assert.equal(env[`EXTRA_${w.toUpperCase()}`], w);
    assert.equal(env.FROM_SECRET, `secret:${w}-extra/k`);
    const names = container(d).env.map((e: { name: string }) => e.name);
    assert.equal(names.at(-1), 'FROM_SECRET', `${w}: extra variables come after the chart's own, so a repeated name takes the extra value`);
    assert.deepEqual(container(d).envFrom, [{ configMapRef: { name: `${w}-config` } }]);
    assert.deepEqual(container(d).volumeMounts.map((m: { mountPath: string }) => m.mountPath), ['/tmp', '/etc/ssl/extra']);
    assert.deepEqual(podSpec(d).volumes.map((v: { name: string }) => v.name), ['tmp', 'ca']);
    assert.deepEqual(podSpec(d).nodeSelector, { pool: w });
    assert.equal(podSpec(d).tolerations[0].value, w);
    assert.deepEqual(podSpec(d).affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values, [w]);
    assert.deepEqual(podSpec(d).topologySpreadConstraints.map((t: { topologyKey: string }) => t.topologyKey), ['topology.kubernetes.io/zone'], `${w}: its own constraints replace the default spread`);
    assert.equal(podSpec(d).priorityClassName, `prio-${w}`);
  }
});

test('without a component value the chart-wide placement applies; the default spread stays; nothing extra is added', async () => {
  const objs = await renderOffline({
    ...BASE, nodeSelector: { pool: 'general' }, tolerations: [{ key: 'spot', operator: 'Exists' }], priorityClassName: 'general',
    'gateway.nodeSelector': { pool: 'edge' }, 'operator.priorityClassName': 'critical',
  });
  const spec = (w: string) => podSpec(must(objs, 'Deployment', `tg-tollgate-${w}`));
  assert.deepEqual(spec('api').nodeSelector, { pool: 'general' });
  assert.deepEqual(spec('gateway').nodeSelector, { pool: 'edge' }, 'a component value replaces the chart-wide one');
  assert.deepEqual(spec('operator').tolerations, [{ key: 'spot', operator: 'Exists' }]);
  assert.equal(spec('api').priorityClassName, 'general');
  assert.equal(spec('operator').priorityClassName, 'critical');
  for (const w of WORKLOADS) {
    assert.equal(spec(w).topologySpreadConstraints[0].topologyKey, 'kubernetes.io/hostname', w);
    assert.equal(container(must(objs, 'Deployment', `tg-tollgate-${w}`)).envFrom, undefined, w);
    assert.deepEqual(spec(w).volumes.map((v: { name: string }) => v.name), ['tmp'], w);
  }
  const bare = await renderOffline(BASE);
  for (const w of WORKLOADS) {
    const plain = podSpec(must(bare, 'Deployment', `tg-tollgate-${w}`));
    assert.deepEqual([plain.priorityClassName, plain.nodeSelector, plain.tolerations, plain.affinity], [undefined, undefined, undefined, undefined], w);
  }
});

test('the embedded trial\'s pod takes the api.* extension points, beside its data volume', async () => {
  const objs = await renderOffline({ 'embedded.enabled': true, ...extensions('api') });
  const d = must(objs, 'Deployment', 'tg-tollgate');
  assert.equal(d.spec.template.metadata.labels.team, 'team-api');
  assert.equal(d.spec.template.metadata.labels['app.kubernetes.io/component'], 'server');
  assert.equal(envOf(d).EXTRA_API, 'api');
  assert.deepEqual(container(d).volumeMounts.map((m: { mountPath: string }) => m.mountPath), ['/tmp', '/etc/ssl/extra', '/data']);
  assert.equal(podSpec(d).priorityClassName, 'prio-api');
});

test('disruption budgets for the API and the operator as for the gateway; none for a single replica, where it would block drains', async () => {
  const objs = await renderOffline(BASE);
  for (const w of WORKLOADS) {
    const pdb = must(objs, 'PodDisruptionBudget', `tg-tollgate-${w}`);
    assert.equal(pdb.spec.minAvailable, 1, w);
    assert.deepEqual(pdb.spec.selector.matchLabels, must(objs, 'Deployment', `tg-tollgate-${w}`).spec.selector.matchLabels, `${w}: the budget covers the component's pods`);
  }
  const single = await renderOffline({ ...BASE, 'api.replicas': 1, 'operator.replicas': 1 });
  assert.equal(find(single, 'PodDisruptionBudget', 'tg-tollgate-api'), undefined);
  assert.equal(find(single, 'PodDisruptionBudget', 'tg-tollgate-operator'), undefined);
  const tuned = await renderOffline({ ...BASE, 'api.podDisruptionBudget.minAvailable': '50%', 'operator.podDisruptionBudget.enabled': false });
  assert.equal(must(tuned, 'PodDisruptionBudget', 'tg-tollgate-api').spec.minAvailable, '50%');
  assert.equal(find(tuned, 'PodDisruptionBudget', 'tg-tollgate-operator'), undefined);
  assert.match(await refused({ ...BASE, 'operator.podDisruptionBudget.minAvailable': 'half' }), /at '\/operator\/podDisruptionBudget\/minAvailable'/);
});

/** Whether a label selector's matchLabels all hold on labels. */
const selects = (sel: Record<string, string>, labels: Record<string, string> = {}) => Object.entries(sel).every(([k, v]) => labels[k] === v);

test('ServiceMonitors reach the metrics ports: the gateway admin Service and the operator metrics Service', async () => {
  const objs = await renderOffline({
    ...BASE, 'monitoring.serviceMonitor.enabled': true, 'monitoring.labels': { release: 'kube-prometheus-stack' },
    'monitoring.interval': '15s', 'monitoring.scrapeTimeout': '5s', 'monitoring.metricRelabelings': [{ action: 'drop', sourceLabels: ['__name__'], regex: 'tollgate_gateway_nodejs_.*' }],
  });
  const services = objs.filter((o) => o.kind === 'Service');
  const targets: string[] = [];
  for (const name of ['tg-tollgate-gateway', 'tg-tollgate-operator']) {
    const sm = must(objs, 'ServiceMonitor', name);
    assert.equal(sm.apiVersion, 'monitoring.coreos.com/v1');
    assert.equal(sm.metadata.labels!.release, 'kube-prometheus-stack', 'the Prometheus selects monitors by label');
    const [ep] = sm.spec.endpoints;
    assert.equal(ep.path, '/metrics');
    assert.equal(ep.interval, '15s');
    assert.equal(ep.scrapeTimeout, '5s');
    assert.equal(ep.metricRelabelings[0].regex, 'tollgate_gateway_nodejs_.*');
    for (const svc of services.filter((s) => selects(sm.spec.selector.matchLabels, s.metadata.labels))) {
      const port = svc.spec.ports.find((p: { name: string }) => p.name === ep.port);
      if (port) targets.push(`${svc.metadata.name}:${port.port}->${port.targetPort}`);
    }
  }
  assert.deepEqual(targets, ['tg-tollgate-gateway-admin:8082->admin', 'tg-tollgate-operator-metrics:8083->health'], 'exactly the metrics ports, not the proxy or the API');
  // The Services' target ports are the containers' ports that serve /metrics.
  assert.ok(container(must(objs, 'Deployment', 'tg-tollgate-gateway')).ports.some((p: { name: string; containerPort: number }) => p.name === 'admin' && p.containerPort === 8082));
  assert.ok(container(must(objs, 'Deployment', 'tg-tollgate-operator')).ports.some((p: { name: string; containerPort: number }) => p.name === 'health' && p.containerPort === 8083));
  const opSvc = must(objs, 'Service', 'tg-tollgate-operator-metrics');
  assert.ok(selects(opSvc.spec.selector, must(objs, 'Deployment', 'tg-tollgate-operator').spec.template.metadata.labels));

  const noOperator = await renderOffline({ ...BASE, 'monitoring.serviceMonitor.enabled': true, 'operator.enabled': false });
  assert.deepEqual(noOperator.filter((o) => o.kind === 'ServiceMonitor').map((o) => o.metadata.name), ['tg-tollgate-gateway']);
  assert.equal(find(noOperator, 'Service', 'tg-tollgate-operator-metrics'), undefined);
  assert.equal((await renderOffline(BASE)).some((o) => o.kind === 'ServiceMonitor' || o.kind === 'PodMonitor'), false, 'off by default');
});

test('PodMonitors select the pods that serve /metrics, the embedded trial\'s too; both kinds at once are refused', async () => {
  for (const [values, gatewayPods] of [[BASE, 'tg-tollgate-gateway'], [{ 'embedded.enabled': true }, 'tg-tollgate']] as const) {
    const objs = await renderOffline({ ...values, 'monitoring.podMonitor.enabled': true });
    for (const [name, deploy, port] of [['tg-tollgate-gateway', gatewayPods, 'admin'], ['tg-tollgate-operator', 'tg-tollgate-operator', 'health']]) {
      const pm = must(objs, 'PodMonitor', name!);
      const selected = objs.filter((o) => o.kind === 'Deployment' && selects(pm.spec.selector.matchLabels, o.spec.template.metadata.labels)).map((o) => o.metadata.name);
      assert.deepEqual(selected, [deploy], name);
      assert.equal(pm.spec.podMetricsEndpoints[0].port, port);
      assert.ok(container(must(objs, 'Deployment', deploy!)).ports.some((p: { name: string }) => p.name === port), `${deploy} has the port ${port}`);
    }
  }
  const both = await refused({ ...BASE, 'monitoring.podMonitor.enabled': true, 'monitoring.serviceMonitor.enabled': true });
  assert.match(both, /monitoring\.serviceMonitor\.enabled and monitoring\.podMonitor\.enabled are both true: Prometheus would scrape every target twice/);
  assert.match(await refused({ ...BASE, 'monitoring.interval': '30 seconds' }), /at '\/monitoring\/interval'/);
});

test('the Grafana dashboard ships as a ConfigMap with the sidecar\'s label, byte for byte the file in the chart', async () => {
  const file = readFileSync(join(chart, 'dashboards', 'tollgate.json'), 'utf8');
  const objs = await renderOffline({ ...BASE, 'monitoring.dashboard.enabled': true, 'monitoring.dashboard.annotations': { grafana_folder: 'Tollgate' } });
  const cm = must(objs, 'ConfigMap', 'tg-tollgate-dashboard');
  assert.equal(cm.metadata.labels!.grafana_dashboard, '1');
  assert.equal(cm.metadata.labels!['app.kubernetes.io/instance'], 'tg');
  assert.equal(cm.metadata.annotations!.grafana_folder, 'Tollgate');
  assert.equal(cm.metadata.namespace, 'tollgate');
  assert.equal(cm.data['tollgate.json'], file.replace(/\n$/, ''));
  // Helm merges a map of the user's into the default one: null removes the default label.
  const elsewhere = await renderOffline({ ...BASE, 'monitoring.dashboard.enabled': true, 'monitoring.dashboard.namespace': 'grafana', 'monitoring.dashboard.labels': { dashboards: 'tollgate', grafana_dashboard: null } });
  const cm2 = must(elsewhere, 'ConfigMap', 'tg-tollgate-dashboard');
  assert.equal(cm2.metadata.namespace, 'grafana');
  assert.deepEqual([cm2.metadata.labels!.dashboards, cm2.metadata.labels!.grafana_dashboard], ['tollgate', undefined]);
  assert.equal(find(await renderOffline(BASE), 'ConfigMap', 'tg-tollgate-dashboard'), undefined);
});

test('the dashboard is well-formed: unique panel ids, every query on the datasource variable and the namespace filter', () => {
  const dash = JSON.parse(readFileSync(join(chart, 'dashboards', 'tollgate.json'), 'utf8'));
  assert.equal(dash.uid, 'tollgate-overview');
  assert.deepEqual(dash.templating.list.map((v: { name: string }) => v.name), ['datasource', 'namespace']);
  const panels = dash.panels as Array<{ id: number; type: string; gridPos: { w: number; x: number }; datasource?: { uid: string }; targets?: Array<{ expr: string; datasource: { uid: string } }> }>;
  assert.equal(new Set(panels.map((p) => p.id)).size, panels.length);
  for (const p of panels) {
    assert.ok(p.gridPos.x + p.gridPos.w <= 24, `panel ${p.id} fits the grid`);
    if (p.type === 'row') continue;
    assert.equal(p.datasource!.uid, '${datasource}');
    assert.ok(p.targets!.length > 0, `panel ${p.id}`);
    for (const t of p.targets!) {
      assert.equal(t.datasource.uid, '${datasource}');
      for (const sel of t.expr.matchAll(/tollgate_[a-z0-9_]+(\{[^}]*\})?/g)) assert.match(sel[1] ?? '', /namespace=~"\$namespace"/, `panel ${p.id}: ${sel[0]} filters by namespace`);
    }
  }
});

/** The NetworkPolicy rules that let `port` in, as the peers they allow ('any' for a rule without `from`). */
function ingressTo(np: K8sObject, port: number): unknown[] {
  const rules = (np.spec.ingress as Array<{ from?: unknown[]; ports?: Array<{ port: number }> }>).filter((r) => !r.ports || r.ports.some((p) => p.port === port));
  return rules.flatMap((r) => r.from ?? ['any']);
}

test('NetworkPolicies: proxy and API ports open, the admin and health ports only to the release\'s pods and metricsFrom', async () => {
  const prometheus = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } };
  const objs = await renderOffline({ ...BASE, 'networkPolicy.enabled': true, 'networkPolicy.metricsFrom': [prometheus] });
  const release = { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'tollgate', 'app.kubernetes.io/instance': 'tg' } } };
  const api = must(objs, 'NetworkPolicy', 'tg-tollgate-api');
  const gw = must(objs, 'NetworkPolicy', 'tg-tollgate-gateway');
  const op = must(objs, 'NetworkPolicy', 'tg-tollgate-operator');
  for (const [np, w] of [[api, 'api'], [gw, 'gateway'], [op, 'operator']] as const) {
    assert.ok(selects(np.spec.podSelector.matchLabels, must(objs, 'Deployment', `tg-tollgate-${w}`).spec.template.metadata.labels), `${w}: the policy selects its pods`);
  }
  assert.deepEqual(ingressTo(api, 8080), ['any']);
  assert.deepEqual(ingressTo(gw, 8081), ['any']);
  assert.deepEqual(ingressTo(gw, 8082), [release, prometheus], 'the admin port (status, metrics): the release and the scraper');
  assert.deepEqual(ingressTo(op, 8083), [release, prometheus]);
  assert.deepEqual(ingressTo(api, 8082), [], 'nothing else reaches the API');
  assert.deepEqual(op.spec.policyTypes, ['Ingress'], 'the operator\'s egress (the Kubernetes API server) stays open');

  const internal = await renderOffline({ ...BASE, 'networkPolicy.enabled': true });
  assert.deepEqual(ingressTo(must(internal, 'NetworkPolicy', 'tg-tollgate-gateway'), 8082), [release]);
  assert.equal((await renderOffline(BASE)).some((o) => o.kind === 'NetworkPolicy'), false, 'off by default');
});

type Egress = { to?: Array<{ ipBlock?: { cidr: string; except?: string[] }; podSelector?: unknown }>; ports?: Array<{ port: number; protocol: string }> };

test('NetworkPolicies: egress to DNS, the datastore ports, the gateway admin port (API) and the public internet only', async () => {
  const objs = await renderOffline({ ...BASE, 'networkPolicy.enabled': true });
  for (const name of ['tg-tollgate-api', 'tg-tollgate-gateway']) {
    const egress = must(objs, 'NetworkPolicy', name).spec.egress as Egress[];
    const ports = (r: Egress) => (r.ports ?? []).map((p) => `${p.port}/${p.protocol}`).join(',');
    assert.ok(egress.some((r) => !r.to && ports(r) === '53/UDP,53/TCP'), `${name}: DNS`);
    assert.ok(egress.some((r) => !r.to && ports(r) === '5432/TCP,6379/TCP'), `${name}: PostgreSQL and Redis`);
    const open = egress.filter((r) => !r.ports);
    assert.equal(open.length, 1, `${name}: one rule without ports, the upstreams`);
    assert.deepEqual(open[0]!.to!.map((p) => p.ipBlock!.cidr), ['0.0.0.0/0', '::/0']);
    // What is left out is what the gateway itself refuses as an upstream (server/src/net/ip-ranges.ts), so the
    // policy blocks no upstream the application would call, and still shields the cluster's own addresses.
    for (const except of open[0]!.to!.flatMap((p) => p.ipBlock!.except!)) {
      const net = parseCidr(except);
      assert.ok(net, except);
      assert.ok(blockedRange(net.bytes), `${except} is a range the gateway refuses`);
    }
    assert.equal(blockedRange(parseIp('10.96.0.10')!), 'private', 'a typical Service address is in the excepted ranges');
  }
  const apiEgress = must(objs, 'NetworkPolicy', 'tg-tollgate-api').spec.egress as Egress[];
  assert.ok(apiEgress.some((r) => r.to?.[0]?.podSelector && r.ports?.[0]?.port === 8082), 'the API reaches the gateways\' admin port for /api/health');

  const custom = await renderOffline({
    ...BASE, 'networkPolicy.enabled': true, 'networkPolicy.upstreams': [], 'networkPolicy.datastore.ports': [5433],
    'networkPolicy.datastore.to': [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'db' } } }],
    'networkPolicy.extraEgress': [{ to: [{ ipBlock: { cidr: '10.20.0.0/16' } }], ports: [{ port: 3128, protocol: 'TCP' }] }],
  });
  const egress = must(custom, 'NetworkPolicy', 'tg-tollgate-gateway').spec.egress as Egress[];
  assert.equal(egress.filter((r) => !r.ports).length, 0, 'no upstreams: no rule without ports (an empty `to` would allow every address)');
  assert.deepEqual(egress.find((r) => r.ports?.[0]?.port === 5433)!.to, [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'db' } } }]);
  assert.ok(egress.some((r) => r.ports?.[0]?.port === 3128 && r.to?.[0]?.ipBlock?.cidr === '10.20.0.0/16'), 'extraEgress');

  const trial = await renderOffline({ 'embedded.enabled': true, 'networkPolicy.enabled': true });
  const np = must(trial, 'NetworkPolicy', 'tg-tollgate');
  assert.ok(selects(np.spec.podSelector.matchLabels, must(trial, 'Deployment', 'tg-tollgate').spec.template.metadata.labels));
  assert.deepEqual([ingressTo(np, 8080), ingressTo(np, 8081)], [['any'], ['any']]);
  assert.equal(ingressTo(np, 8082).length, 1, 'the admin port: the release only');
  assert.equal((np.spec.egress as Egress[]).some((r) => r.ports?.some((p) => p.port === 5432)), false, 'no datastore to reach');
});

test('HTTPRoutes: the API host to the API, *.<proxyDomain> and gatewayHosts to the gateway, which accepts them; the operator may call the API host', async () => {
  const values = {
    ...BASE, proxyDomain: 'proxy.example.com', 'httpRoute.enabled': true, 'httpRoute.apiHost': 'api.example.com', 'httpRoute.gatewayHosts': ['gateway.example.com'],
    'httpRoute.parentRefs': [{ name: 'shared', namespace: 'gateway-system', sectionName: 'https' }], 'httpRoute.labels': { exposure: 'public' },
  };
  const objs = await renderOffline(values);
  const route = (name: string) => {
    const r = must(objs, 'HTTPRoute', name);
    assert.equal(r.apiVersion, 'gateway.networking.k8s.io/v1');
    assert.deepEqual(r.spec.parentRefs, [{ name: 'shared', namespace: 'gateway-system', sectionName: 'https' }]);
    assert.equal(r.metadata.labels!.exposure, 'public');
    const backend = r.spec.rules[0].backendRefs[0];
    const svc = must(objs, 'Service', backend.name);
    assert.ok(svc.spec.ports.some((p: { port: number }) => p.port === backend.port), `${name}: the backend port is a port of ${backend.name}`);
    return `${r.spec.hostnames.join(',')} -> ${backend.name}`;
  };
  assert.equal(route('tg-tollgate-api'), 'api.example.com -> tg-tollgate-api');
  assert.equal(route('tg-tollgate-gateway'), '*.proxy.example.com,gateway.example.com -> tg-tollgate-gateway');
  assert.ok(envOf(must(objs, 'Deployment', 'tg-tollgate-gateway')).TOLLGATE_GATEWAY_PUBLIC_HOSTS!.split(',').includes('gateway.example.com'), 'the gateway serves the routed host');
  assert.ok(envOf(must(objs, 'Deployment', 'tg-tollgate-operator')).TOLLGATE_OPERATOR_ALLOWED_API_URLS!.split(',').includes('https://api.example.com'));
  const pinned = await renderOffline({ ...values, 'operator.allowedApiUrls': ['https://tollgate.internal'] });
  assert.equal(envOf(must(pinned, 'Deployment', 'tg-tollgate-operator')).TOLLGATE_OPERATOR_ALLOWED_API_URLS, 'https://tollgate.internal', 'an explicit list stays as given');

  const trial = await renderOffline({ 'embedded.enabled': true, proxyDomain: 'proxy.example.com', 'httpRoute.enabled': true, 'httpRoute.apiHost': 'api.example.com', 'httpRoute.parentRefs': [{ name: 'gw' }] });
  assert.equal(must(trial, 'HTTPRoute', 'tg-tollgate-gateway').spec.rules[0].backendRefs[0].name, 'tg-tollgate-gateway');

  assert.match(await refused({ ...values, 'httpRoute.parentRefs': [] }), /httpRoute\.parentRefs is required with httpRoute\.enabled/);
  assert.match(await refused({ ...values, 'httpRoute.apiHost': '' }), /httpRoute\.apiHost is required with httpRoute\.enabled/);
  assert.match(await refused({ ...values, proxyDomain: 'proxy.localhost' }), /proxyDomain is "proxy\.localhost" with httpRoute\.enabled/);
  assert.match(await refused({ ...values, 'httpRoute.gatewayHosts': ['https://gateway.example.com'] }), /at '\/httpRoute\/gatewayHosts\/0'/);
});

type Schema = { $ref?: string; type?: string; properties?: Record<string, Schema>; additionalProperties?: boolean | Schema; definitions?: Record<string, Schema> };

test('values.schema.json describes every value of values.yaml, and refuses a misspelt new one', async () => {
  const schema = JSON.parse(readFileSync(join(chart, 'values.schema.json'), 'utf8')) as Schema;
  const values = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as Record<string, unknown>;
  const resolve = (s: Schema): Schema => (s.$ref ? resolve(schema.definitions![s.$ref.replace('#/definitions/', '')]!) : s);
  const missing: string[] = [];
  const walk = (v: unknown, s: Schema, path: string) => {
    const node = resolve(s);
    if (!v || typeof v !== 'object' || Array.isArray(v)) return;
    for (const [k, child] of Object.entries(v)) {
      const sub = node.properties?.[k] ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
      if (!sub) {
        if (node.type !== 'object' || node.properties) missing.push(`${path}.${k}`);
        continue;
      }
      walk(child, sub, `${path}.${k}`);
    }
  };
  walk(values, schema, '');
  assert.deepEqual(missing, []);
  for (const [key, path] of [['monitoring.serviceMonitor.enable', 'monitoring/serviceMonitor'], ['networkPolicy.upstream', 'networkPolicy'], ['httpRoute.hosts', 'httpRoute'], ['gateway.extraVolume', 'gateway']]) {
    assert.match(await refused({ ...BASE, [key!]: true }), new RegExp(`at '/${path}': additional properties '${key!.split('.').pop()}' not allowed`), key);
  }
});
