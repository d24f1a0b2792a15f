// The operator's RBAC grants exactly what the operator uses. USES (operator-uses.ts) is the list of its requests to the
// Kubernetes API, each with the code behind it; a scan of operator/src checks that the list and the code agree (every
// request goes through kube/objects.ts `paths`), and the rendered (Cluster)Role and leader-election Role must grant
// exactly USES: nothing more, no `*`. install.test.ts asks the real API server (`kubectl auth can-i`) the same, and
// image-entrypoints.test.ts runs the operator on these permissions alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { GROUP } from '../../operator/src/kinds/specs.ts';
import { BASE, KUBE_VERSION, chart, envOf, helm, must, renderOffline, root, setArgs, type K8sObject } from './kit.ts';
import { CRS, SELECTOR_USES, STATUS, USES, type Use } from './operator-uses.ts';

/**
 * Requests made only with TOLLGATE_WATCH_NAMESPACE_SELECTOR, which the chart grants only with
 * operator.watchNamespaceSelector: kube/watched-namespaces.ts lists and watches Namespaces with the selector.
 */

/** Requests that no call in the code makes, granted for a reason USES gives. */
const NOT_A_CALL = new Set(['tollgate.dev apikeys/finalizers update']);

const triples = (uses: Use[]) => new Set(uses.flatMap((u) => u.resources.map((r) => `${u.group} ${r} ${u.verb}`)));

// ------------------------------------------------------------------------------------------------------------
// The scan of operator/src.

/** How a KubeClient method on a path of kube/objects.ts becomes an RBAC verb on a resource. */
function requestOf(method: string, pathFn: string, item: boolean): string[] {
  const verb = ({ get: item ? 'get' : 'list', watch: 'watch', create: 'create', replace: 'update', patch: 'patch', delete: 'delete' } as Record<string, string>)[method];
  if (!verb) throw new Error(`unknown KubeClient method ${method}`);
  switch (pathFn) {
    case 'customCollection': return CRS.map((r) => `${GROUP} ${r} ${verb}`);
    case 'custom': return CRS.map((r) => `${GROUP} ${r} ${verb}`);
    case 'customStatus': return STATUS.map((r) => `${GROUP} ${r} ${verb}`);
    case 'secrets': case 'secret': return [` secrets ${verb}`];
    case 'events': return [` events ${verb}`];
    case 'leases': case 'lease': return [`coordination.k8s.io leases ${verb}`];
    case 'namespaces': return [` namespaces ${verb}`];
    default: throw new Error(`unknown path ${pathFn}: add it to requestOf`);
  }
}

const ITEM_PATHS = new Set(['custom', 'customStatus', 'secret', 'lease']);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** Every `<client>.<method>(paths.x(...))` (or a `${paths.x(...)}/name` template, or a const holding paths.x). */
function scanOperator(): { requests: Set<string>; calls: string[] } {
  const requests = new Set<string>();
  const calls: string[] = [];
  for (const file of sourceFiles(join(root, 'operator', 'src'))) {
    if (file.endsWith(join('kube', 'objects.ts'))) continue; // where the paths are defined
    const text = readFileSync(file, 'utf8');
    const consts = new Map([...text.matchAll(/const (\w+) = paths\.(\w+)\(/g)].map((m) => [m[1]!, m[2]!]));
    const call = /\.(get|watch|create|replace|patch|delete)\s*(?:<[^()]*?>)?\(\s*(`\$\{)?(?:paths\.(\w+)\(|(\w+)\s*[,)])/g;
    let used = 0;
    for (const m of text.matchAll(call)) {
      const pathFn = m[3] ?? consts.get(m[4] ?? '');
      if (!pathFn) continue; // not a Kubernetes request (the management API client, Maps)
      used += m[3] ? 1 : 0;
      const item = ITEM_PATHS.has(pathFn) || !!m[2]; // a template `${paths.events(ns)}/${name}` names one object
      for (const r of requestOf(m[1]!, pathFn, item)) requests.add(r);
      calls.push(`${relative(root, file)}: ${m[1]} ${pathFn}${m[2] ? '/<name>' : ''}`);
    }
    // Every use of paths.x( is a request we recognised, or a const that one uses.
    const all = [...text.matchAll(/paths\.\w+\(/g)].length;
    assert.equal(used + consts.size, all, `${relative(root, file)}: a paths.x( use the scan does not understand`);
  }
  return { requests, calls };
}

test('USES is what operator/src requests, call by call (and one admission-time permission)', () => {
  const { requests, calls } = scanOperator();
  assert.ok(calls.length >= 15, calls.join('\n'));
  const table = triples([...USES, ...SELECTOR_USES]);
  const fromCode = new Set([...table].filter((t) => !NOT_A_CALL.has(t)));
  assert.deepEqual([...requests].sort(), [...fromCode].sort(), `the scan found:\n${calls.join('\n')}`);
});

// ------------------------------------------------------------------------------------------------------------
// The rendered RBAC.

function granted(role: K8sObject): Array<{ triple: string; resourceNames?: string[] }> {
  return role.rules.flatMap((r: { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }) => {
    for (const f of [r.apiGroups, r.resources, r.verbs]) assert.ok(!f.includes('*'), `${role.kind} ${role.metadata.name}: a wildcard`);
    return r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => ({ triple: `${g} ${res} ${v}`, resourceNames: r.resourceNames }))));
  });
}

/** The object of a kind and name in one namespace (undefined: a cluster-scoped one). */
function mustIn(objs: K8sObject[], kind: string, name: string, namespace?: string): K8sObject {
  const o = objs.find((x) => x.kind === kind && x.metadata.name === name && x.metadata.namespace === namespace);
  if (!o) throw new Error(`no ${kind} ${namespace ?? '(cluster)'}/${name}; the rendering has: ${objs.map((x) => `${x.kind}/${x.metadata.namespace ?? ''}/${x.metadata.name}`).join(', ')}`);
  return o;
}

const SUBJECTS = [{ kind: 'ServiceAccount', name: 'tg-tollgate-operator', namespace: 'tollgate' }];

function assertExact(objs: K8sObject[], kind: 'ClusterRole' | 'Role', namespace?: string) {
  const main = granted(mustIn(objs, kind, 'tg-tollgate-operator', namespace));
  assert.deepEqual(main.map((g) => g.triple).sort(), [...triples(USES.filter((u) => !u.lease))].sort());
  assert.ok(main.every((g) => !g.resourceNames), 'the watched kinds and Secrets have names chosen by users');
  const lease = granted(must(objs, 'Role', 'tg-tollgate-operator-leader-election'));
  assert.deepEqual(lease.map((g) => g.triple).sort(), [...triples(USES.filter((u) => u.lease))].sort());
  for (const g of lease) {
    // create cannot be narrowed by name (the object does not exist yet); get and update can.
    assert.deepEqual(g.resourceNames, g.triple.endsWith(' create') ? undefined : ['tollgate-operator'], g.triple);
  }
}

test('every namespace: the ClusterRole grants exactly USES (the Lease in a Role of the release namespace)', async () => {
  const objs = await renderOffline(BASE);
  assertExact(objs, 'ClusterRole');
  const binding = must(objs, 'ClusterRoleBinding', 'tg-tollgate-operator');
  assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'tg-tollgate-operator' });
  assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'tg-tollgate-operator', namespace: 'tollgate' }]);
});

test('one namespace: a Role there grants exactly USES, and no cluster-wide role exists', async () => {
  const objs = await renderOffline({ ...BASE, 'operator.watchNamespace': 'apps' });
  assertExact(objs, 'Role', 'apps');
  assert.equal(objs.filter((o) => o.kind.startsWith('Cluster')).length, 0);
});

test('a list of namespaces: a Role and a RoleBinding in each grant exactly USES, and nothing is cluster-wide', async () => {
  const objs = await renderOffline({ ...BASE, 'operator.watchNamespaces': ['team-a', 'team-b'] });
  for (const ns of ['team-a', 'team-b']) {
    assertExact(objs, 'Role', ns);
    const binding = mustIn(objs, 'RoleBinding', 'tg-tollgate-operator', ns);
    assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tg-tollgate-operator' });
    assert.deepEqual(binding.subjects, SUBJECTS);
  }
  assert.deepEqual(objs.filter((o) => o.kind.startsWith('Cluster')).map((o) => o.metadata.name), []);
  assert.deepEqual(objs.filter((o) => o.kind === 'Role').map((o) => o.metadata.namespace).sort(), ['team-a', 'team-b', 'tollgate']);
  assert.equal(envOf(must(objs, 'Deployment', 'tg-tollgate-operator')).TOLLGATE_WATCH_NAMESPACES, 'team-a,team-b');
});

test('a namespace selector: USES bound by RoleBindings in rbac.selectorNamespaces only; cluster-wide, Namespaces list and watch alone', async () => {
  const objs = await renderOffline({ ...BASE, 'operator.watchNamespaceSelector': 'tollgate.dev/watch=true', 'operator.rbac.selectorNamespaces': ['team-a', 'team-b'] });
  assertExact(objs, 'ClusterRole');
  for (const ns of ['team-a', 'team-b']) {
    const binding = mustIn(objs, 'RoleBinding', 'tg-tollgate-operator', ns);
    assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'tg-tollgate-operator' });
    assert.deepEqual(binding.subjects, SUBJECTS);
  }
  // The only cluster-wide binding is to the Namespaces role: no cluster-wide Secret access.
  const clusterBindings = objs.filter((o) => o.kind === 'ClusterRoleBinding');
  assert.deepEqual(clusterBindings.map((b) => b.roleRef.name), ['tg-tollgate-operator-namespaces']);
  assert.deepEqual(clusterBindings[0]!.subjects, SUBJECTS);
  const namespacesRole = granted(mustIn(objs, 'ClusterRole', 'tg-tollgate-operator-namespaces'));
  assert.deepEqual(namespacesRole.map((g) => g.triple).sort(), [...triples(SELECTOR_USES)].sort());
  assert.equal(envOf(must(objs, 'Deployment', 'tg-tollgate-operator')).TOLLGATE_WATCH_NAMESPACE_SELECTOR, 'tollgate.dev/watch=true');
});

test('the chart refuses two ways of choosing namespaces at once, and selectorNamespaces without a selector', async () => {
  const refused = async (values: Record<string, unknown>, message: RegExp) => {
    const r = await helm(['template', 'tg', chart, '--namespace', 'tollgate', '--kube-version', KUBE_VERSION, ...setArgs({ ...BASE, ...values })]);
    assert.notEqual(r.code, 0, JSON.stringify(values));
    assert.match(r.stderr, message);
  };
  await refused({ 'operator.watchNamespaces': ['a'], 'operator.watchNamespaceSelector': 'team=a' }, /set at most one of operator\.watchNamespace, operator\.watchNamespaces and operator\.watchNamespaceSelector/);
  await refused({ 'operator.watchNamespace': 'a', 'operator.watchNamespaces': ['b'] }, /set at most one of/);
  await refused({ 'operator.watchNamespaces': ['a'], 'operator.rbac.selectorNamespaces': ['a'] }, /operator\.rbac\.selectorNamespaces is set without operator\.watchNamespaceSelector/);
  await refused({ 'operator.watchNamespaces': ['Team_A'] }, /watchNamespaces/);
});

test('the API and gateway pods carry no Kubernetes token: only the operator talks to the Kubernetes API', async () => {
  const objs = await renderOffline(BASE);
  const tokens = objs.filter((o) => o.kind === 'Deployment').map((d) => `${d.metadata.name}: ${d.spec.template.spec.automountServiceAccountToken}`);
  assert.deepEqual(tokens.sort(), ['tg-tollgate-api: false', 'tg-tollgate-gateway: false', 'tg-tollgate-operator: true']);
});
