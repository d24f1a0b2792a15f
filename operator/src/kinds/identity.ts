// How a remote object records which Kubernetes object it belongs to, so a restarted operator adopts what it created
// instead of creating a duplicate (a crash between the remote create and the status write loses only the id). The
// management API has no labels on proxies, so their remote name carries the object's UID; keys carry it as a tag.
import { KEY_NAME_RE, MAX_KEY_NAME } from '@tollgate/contract';

const UID_SUFFIX = / \[k8s:([0-9a-f-]{36})\]$/;

/** The remote name of a proxy: its display name and the object's UID, e.g. `weather [k8s:6f1c…]`. */
export const remoteProxyName = (displayName: string, uid: string) => `${displayName} [k8s:${uid}]`;

export const uidOfRemoteName = (name: string): string | undefined => UID_SUFFIX.exec(name)?.[1];

/** The custom tag that marks a client key as the one of an ApiKey object. */
export const uidTag = (uid: string) => `k8s:uid:${uid}`;
export const objectTag = (namespace: string, name: string) => `k8s:object:${namespace}/${name}`;
export const isOperatorTag = (tag: string) => tag.startsWith('k8s:uid:') || tag.startsWith('k8s:object:');

/** The remote name of an ApiKey's client key: `k8s-<namespace>-<name>` in the characters key names allow. */
export function remoteKeyName(namespace: string, name: string): string {
  const out = `k8s-${namespace}-${name}`.replace(/[^a-zA-Z0-9_-]/g, '-').slice(0, MAX_KEY_NAME);
  if (!KEY_NAME_RE.test(out)) throw new Error(`cannot derive a key name from ${namespace}/${name}`);
  return out;
}
