// The operator's requests to the Kubernetes API, each with the code behind it: the table rbac.test.ts checks against
// a scan of operator/src and against the chart's rendered RBAC, and install.test.ts asks the API server about.
import { GROUP, KINDS, KIND_NAMES } from '../../operator/src/kinds/specs.ts';

export const CRS = KIND_NAMES.map((k) => KINDS[k].plural);
export const STATUS = CRS.map((p) => `${p}/status`);

export interface Use { group: string; resources: string[]; verb: string; why: string; lease?: true }

/** The operator's requests: what, and where in operator/src. */
export const USES: Use[] = [
  { group: GROUP, resources: CRS, verb: 'list', why: 'kube/informer.ts #relist: GET of the collection, page by page (all namespaces, or each watched namespace: TOLLGATE_WATCH_NAMESPACES or the selector\'s)' },
  { group: GROUP, resources: CRS, verb: 'watch', why: 'kube/informer.ts: GET of the collection with watch=true from the list\'s resourceVersion' },
  { group: GROUP, resources: CRS, verb: 'patch', why: 'controller.ts: merge patches adding and removing the finalizer tollgate.dev/cleanup' },
  { group: GROUP, resources: STATUS, verb: 'patch', why: 'controller.ts #settle: merge patch of status (conditions, id, proxyHost, ...)' },
  { group: GROUP, resources: ['apikeys/finalizers'], verb: 'update', why: 'reconcile/api-key.ts: the key Secret names its ApiKey as owner with blockOwnerDeletion, which the admission plugin OwnerReferencesPermissionEnforcement allows only to who may update the owner\'s finalizers (no request of its own)' },
  { group: '', resources: ['secrets'], verb: 'get', why: 'reconcile/connection.ts (the connection Secret), reconcile/secrets.ts (provider keys and upstream tokens by reference), reconcile/api-key.ts (the key Secret)' },
  { group: '', resources: ['secrets'], verb: 'create', why: 'reconcile/api-key.ts writeKeySecret: a new key Secret' },
  { group: '', resources: ['secrets'], verb: 'update', why: 'reconcile/api-key.ts writeKeySecret: the key Secret replaced (PUT) on rotation' },
  { group: '', resources: ['secrets'], verb: 'patch', why: 'reconcile/connection.ts: the finalizer on the connection Secret, added and released; reconcile/key-secret.ts: the key Secret\'s owner reference, added on adoption and removed with deletionPolicy Orphan' },
  { group: '', resources: ['events'], verb: 'create', why: 'events.ts: an Event per outcome worth telling' },
  { group: '', resources: ['events'], verb: 'patch', why: 'events.ts: a repeated Event counted up' },
  { group: 'coordination.k8s.io', resources: ['leases'], verb: 'get', why: 'leader.ts: read the Lease', lease: true },
  { group: 'coordination.k8s.io', resources: ['leases'], verb: 'create', why: 'leader.ts: the first replica creates the Lease', lease: true },
  { group: 'coordination.k8s.io', resources: ['leases'], verb: 'update', why: 'leader.ts: acquire, renew and release (PUT with resourceVersion)', lease: true },
];

/** Selector mode only (TOLLGATE_WATCH_NAMESPACE_SELECTOR): the one cluster-wide grant, namespaces to list and watch. */
export const SELECTOR_USES: Use[] = [
  { group: '', resources: ['namespaces'], verb: 'list', why: 'kube/watched-namespaces.ts namespaceSource: the namespaces the selector matches' },
  { group: '', resources: ['namespaces'], verb: 'watch', why: 'kube/watched-namespaces.ts namespaceSource: namespaces that start or stop matching' },
];
