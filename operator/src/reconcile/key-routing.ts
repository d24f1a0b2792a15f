// Which connection an ApiKey's remote key is made through, decided from the informer caches alone (no call):
// proxies of its own namespace are reached through its own connection (spec.connectionRef); a proxy of another
// namespace only when that
// proxy grants the key's namespace (spec.grants, in the style of a Gateway API ReferenceGrant), and then through the
// proxy's connection, since the remote proxy belongs to that connection's user and a key can only name its own
// user's proxies. One remote key belongs to one user, so a key whose proxies are reached through two connections is
// refused rather than split.
import type { ApiKeySpec } from '../kinds/specs.ts';
import type { KubeObject } from '../kube/objects.ts';
import { connectionKey, connectionSecretOf } from './connection.ts';
import { invalid, waiting, type Outcome } from './outcome.ts';
import type { ConnectionRef, ObjectIndex } from './types.ts';

export type ProxyKind = 'McpProxy' | 'LlmProxy';

/** One proxy reference of the spec, with the namespace filled in. */
export interface ProxyReference { kind: ProxyKind; namespace: string; name: string; field: string }

export type Route =
  | { ok: true; via: ConnectionRef }
  /** `revoked`: the key may no longer exist where it was made (a grant removed, a shared proxy gone); else it waits. */
  | { ok: false; revoked: boolean; outcome: Outcome };

/** Every proxy the spec names, in spec order (permissions, then budgets). */
export function proxyReferences(spec: ApiKeySpec, keyNamespace: string): ProxyReference[] {
  const ref = (kind: ProxyKind, field: string) => (p: { proxyRef: { name: string; namespace?: string } }): ProxyReference =>
    ({ kind, namespace: p.proxyRef.namespace ?? keyNamespace, name: p.proxyRef.name, field });
  return [
    ...spec.mcpPermissions.map(ref('McpProxy', 'mcpPermissions')),
    ...spec.llmPermissions.map(ref('LlmProxy', 'llmPermissions')),
    ...spec.llmBudgets.map(ref('LlmProxy', 'llmBudgets')),
  ];
}

/** Whether a proxy object lists `namespace` in its spec.grants. */
export function grants(proxy: KubeObject, namespace: string): boolean {
  const list = (proxy.spec as { grants?: Array<{ namespace?: string }> } | undefined)?.grants ?? [];
  return list.some((g) => g.namespace === namespace);
}

const label = (r: ProxyReference) => `${r.kind} ${r.namespace}/${r.name}`;

/** The connection one reference is reached through, or why it cannot be used. */
function routeOne(objects: ObjectIndex, r: ProxyReference, own: ConnectionRef): Route {
  const keyNamespace = own.namespace;
  const proxy = objects.get(r.kind, r.namespace, r.name);
  const shared = r.namespace !== keyNamespace;
  if (!proxy || proxy.metadata.deletionTimestamp) {
    return { ok: false, revoked: shared, outcome: waiting('ProxyMissing', `${shared ? label(r) : `${r.kind} ${r.name}`} does not exist`, {}, 10_000) };
  }
  if (shared && !grants(proxy, keyNamespace)) {
    return {
      ok: false, revoked: true,
      outcome: waiting('ReferenceNotGranted', `${label(r)} (${r.field}) does not grant namespace ${keyNamespace}: its spec.grants needs {namespace: ${keyNamespace}}`, {}, 60_000),
    };
  }
  return { ok: true, via: shared ? { namespace: r.namespace, name: connectionSecretOf(proxy) } : own };
}

/** The one connection the key's proxies are reached through; the key's own when it names none. */
export function routeKey(obj: KubeObject<ApiKeySpec>, objects: ObjectIndex): Route {
  const ns = obj.metadata.namespace!;
  const own: ConnectionRef = { namespace: ns, name: connectionSecretOf(obj) };
  let via: { ref: ConnectionRef; by: ProxyReference } | undefined;
  for (const r of proxyReferences(obj.spec, ns)) {
    const one = routeOne(objects, r, own);
    if (!one.ok) return one;
    if (!via) via = { ref: one.via, by: r };
    else if (connectionKey(via.ref) !== connectionKey(one.via)) return mixed(via, { ref: one.via, by: r });
  }
  return { ok: true, via: via?.ref ?? own };
}

function mixed(a: { ref: ConnectionRef; by: ProxyReference }, b: { ref: ConnectionRef; by: ProxyReference }): Route {
  const message = `${label(a.by)} is reached through connection Secret ${connectionKey(a.ref)} and ${label(b.by)} through ${connectionKey(b.ref)}: `
    + 'one client key belongs to one Tollgate user, so use one ApiKey per connection';
  return { ok: false, revoked: false, outcome: invalid('MixedConnections', message) };
}
