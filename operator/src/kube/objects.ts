// The shapes of the Kubernetes objects the operator reads and writes, and the paths of their REST endpoints.
import { API_VERSION, GROUP, KINDS, VERSION, type Kind } from '../kinds/specs.ts';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface CommonStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  [field: string]: unknown;
}

export interface KubeObject<Spec = Record<string, unknown>> {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: Spec;
  status?: CommonStatus;
}

export interface SecretObject {
  apiVersion?: 'v1';
  kind?: 'Secret';
  metadata: Partial<ObjectMeta> & { name: string };
  type?: string;
  data?: Record<string, string>;
}

/** `namespace/name`: the key of an object in caches and the work queue. */
export const objectKey = (m: { namespace?: string; name: string }) => `${m.namespace ?? ''}/${m.name}`;

const enc = encodeURIComponent;

export const paths = {
  /** The collection of a kind, in one namespace or (namespace undefined) across all. */
  customCollection: (kind: Kind, namespace?: string) =>
    `/apis/${GROUP}/${VERSION}${namespace ? `/namespaces/${enc(namespace)}` : ''}/${KINDS[kind].plural}`,
  custom: (kind: Kind, namespace: string, name: string) => `${paths.customCollection(kind, namespace)}/${enc(name)}`,
  customStatus: (kind: Kind, namespace: string, name: string) => `${paths.custom(kind, namespace, name)}/status`,
  /** Namespaces (cluster-scoped): listed and watched with a label selector only (TOLLGATE_WATCH_NAMESPACE_SELECTOR). */
  namespaces: () => '/api/v1/namespaces',
  secrets: (namespace: string) => `/api/v1/namespaces/${enc(namespace)}/secrets`,
  secret: (namespace: string, name: string) => `${paths.secrets(namespace)}/${enc(name)}`,
  events: (namespace: string) => `/api/v1/namespaces/${enc(namespace)}/events`,
  leases: (namespace: string) => `/apis/coordination.k8s.io/v1/namespaces/${enc(namespace)}/leases`,
  lease: (namespace: string, name: string) => `${paths.leases(namespace)}/${enc(name)}`,
};

export function ownerReference(o: KubeObject): OwnerReference {
  return { apiVersion: API_VERSION, kind: o.kind, name: o.metadata.name, uid: o.metadata.uid, controller: true, blockOwnerDeletion: true };
}

export const secretValue = (s: SecretObject, key: string): string | undefined =>
  s.data?.[key] === undefined ? undefined : Buffer.from(s.data[key]!, 'base64').toString('utf8');
