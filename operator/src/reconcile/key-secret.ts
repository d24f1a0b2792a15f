// The records an ApiKey owns: its remote keys (those carrying its UID tag) and the Secret that holds the plaintext
// of one of them (annotation tollgate.dev/key-id), owned by the ApiKey so the garbage collector deletes it with it.
import type { ApiClient, ResponseOf } from '@tollgate/contract';
import type { ApiKeySpec } from '../kinds/specs.ts';
import { uidTag } from '../kinds/identity.ts';
import type { KubeClient } from '../kube/client.ts';
import { ownerReference, paths, type KubeObject, type SecretObject } from '../kube/objects.ts';
import { failed, waiting, type Outcome } from './outcome.ts';
import { apiFailure } from './remote.ts';

export type KeyRecord = ResponseOf<'GET /api/keys/:id'>;

export const KEY_ID_ANNOTATION = 'tollgate.dev/key-id';
/** The tollgate.dev/rotate value the Secret's key was minted for. Kept on the Secret, which is read from the API
 * server on every reconcile, because the ApiKey comes from the informer's cache: a reconcile that runs before the
 * watch delivers the status written by a rotation would otherwise see the rotation as still to do, and rotate twice. */
export const ROTATED_FOR_ANNOTATION = 'tollgate.dev/rotated-for';
export const SECRET_KEY = 'key';

export const secretNameOf = (obj: KubeObject<ApiKeySpec>) => obj.spec.secretName ?? obj.metadata.name;

export async function readKeySecret(kube: KubeClient, obj: KubeObject<ApiKeySpec>): Promise<{ ok: true; secret: SecretObject | undefined } | { ok: false; outcome: Outcome }> {
  const r = await kube.get<SecretObject>(paths.secret(obj.metadata.namespace!, secretNameOf(obj)));
  if (!r.ok && r.status === 404) return { ok: true, secret: undefined };
  if (!r.ok) return { ok: false, outcome: failed('SecretUnreadable', `reading Secret ${secretNameOf(obj)} failed: ${r.message}`) };
  const owned = r.body.metadata.ownerReferences?.some((o) => o.uid === obj.metadata.uid);
  if (!owned && orphanedFor(r.body, obj)) return takeOver(kube, obj, r.body);
  if (!owned) return { ok: false, outcome: waiting('SecretNameTaken', `Secret ${secretNameOf(obj)} exists and is not owned by this ApiKey; choose another spec.secretName`, {}, 60_000) };
  return { ok: true, secret: r.body };
}

/** Creates or replaces the key's Secret (owned by the ApiKey, so it is garbage-collected with it). */
export async function writeKeySecret(kube: KubeClient, obj: KubeObject<ApiKeySpec>, existing: SecretObject | undefined, key: { id: string; plaintext: string; rotation: string | undefined }): Promise<Outcome | undefined> {
  const { id, plaintext, rotation } = key;
  const annotations: Record<string, string> = { ...existing?.metadata.annotations, [KEY_ID_ANNOTATION]: id };
  if (rotation === undefined) delete annotations[ROTATED_FOR_ANNOTATION];
  else annotations[ROTATED_FOR_ANNOTATION] = rotation;
  const ns = obj.metadata.namespace!;
  const name = secretNameOf(obj);
  const secret: SecretObject = {
    apiVersion: 'v1', kind: 'Secret', type: 'Opaque',
    metadata: {
      name, namespace: ns,
      ...(existing ? { resourceVersion: existing.metadata.resourceVersion } : {}),
      labels: { ...existing?.metadata.labels, 'app.kubernetes.io/managed-by': 'tollgate-operator' },
      annotations,
      ownerReferences: [ownerReference(obj as KubeObject)],
    },
    data: { [SECRET_KEY]: Buffer.from(plaintext).toString('base64') },
  };
  const r = existing ? await kube.replace(paths.secret(ns, name), secret) : await kube.create(paths.secrets(ns), secret);
  return r.ok ? undefined : failed('SecretWriteFailed', `writing Secret ${name} failed: ${r.message}`);
}


/**
 * A Secret left behind by an ApiKey deleted with deletionPolicy Orphan (no owner, still naming its key) is taken over
 * by an ApiKey that adopts that key: the plaintext in it is the adopted key's.
 */
function orphanedFor(secret: SecretObject, obj: KubeObject<ApiKeySpec>): boolean {
  const id = obj.spec.adoptId;
  return !!id && !secret.metadata.ownerReferences?.length && secret.metadata.annotations?.[KEY_ID_ANNOTATION] === id;
}

async function takeOver(kube: KubeClient, obj: KubeObject<ApiKeySpec>, secret: SecretObject): Promise<{ ok: true; secret: SecretObject } | { ok: false; outcome: Outcome }> {
  const r = await kube.patch<SecretObject>(paths.secret(obj.metadata.namespace!, secret.metadata.name), {
    metadata: { ownerReferences: [ownerReference(obj as KubeObject)], resourceVersion: secret.metadata.resourceVersion },
  });
  return r.ok ? { ok: true, secret: r.body } : { ok: false, outcome: failed('SecretWriteFailed', `taking over Secret ${secret.metadata.name} failed: ${r.message}`) };
}

/** Removes the plaintext from the key's Secret (its key was deleted); the Secret stays, owned by the ApiKey, for the next key. */
export async function clearKeySecret(kube: KubeClient, obj: KubeObject<ApiKeySpec>): Promise<Outcome | undefined> {
  const s = await readKeySecret(kube, obj);
  if (!s.ok) return s.outcome.synced.reason === 'SecretNameTaken' ? undefined : s.outcome;
  if (!s.secret?.data?.[SECRET_KEY]) return undefined;
  const annotations = { ...s.secret.metadata.annotations };
  delete annotations[KEY_ID_ANNOTATION];
  const ns = obj.metadata.namespace!;
  const r = await kube.replace(paths.secret(ns, s.secret.metadata.name), { ...s.secret, metadata: { ...s.secret.metadata, annotations }, data: {} });
  return r.ok ? undefined : failed('SecretWriteFailed', `emptying Secret ${s.secret.metadata.name} failed: ${r.message}`);
}

/** deletionPolicy Orphan: the Secret outlives the ApiKey (no owner), so the orphaned key's plaintext stays usable. */
export async function releaseKeySecret(kube: KubeClient, obj: KubeObject<ApiKeySpec>): Promise<Outcome | undefined> {
  const s = await readKeySecret(kube, obj);
  if (!s.ok || !s.secret) return s.ok || s.outcome.synced.reason === 'SecretNameTaken' ? undefined : s.outcome;
  const r = await kube.patch(paths.secret(obj.metadata.namespace!, s.secret.metadata.name), {
    metadata: { ownerReferences: null, resourceVersion: s.secret.metadata.resourceVersion },
  });
  return r.ok || r.status === 404 ? undefined : failed('SecretWriteFailed', `releasing Secret ${s.secret.metadata.name} failed: ${r.message}`);
}

/**
 * The remote keys of an ApiKey: every key carrying its UID tag. This lists all the user's keys, not only the one the
 * Secret names: a create or rotation interrupted before its Secret write leaves keys that nothing else refers to, and
 * the tag is the only way to find them (and delete them, here and on cleanup).
 */
export async function keysOf(api: ApiClient, obj: KubeObject<ApiKeySpec>): Promise<{ ok: true; keys: KeyRecord[] } | { ok: false; outcome: Outcome }> {
  const listed = await api.call('GET /api/keys');
  if (!listed.ok) return { ok: false, outcome: apiFailure(listed.error, 'Listing the client keys') };
  return { ok: true, keys: listed.body.keys.filter((k) => k.tags.includes(uidTag(obj.metadata.uid))) };
}
