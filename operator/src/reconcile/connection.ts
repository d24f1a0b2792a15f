// The connection to the management API: the Secret tollgate-connection (or spec.connectionRef.name) in the object's
// namespace, with the keys `url` and `token` (a PAT; its user owns the remote objects).
//
// The operator puts its finalizer on that Secret while objects use it. Deleting a namespace deletes everything in it
// at once; without the finalizer the Secret would be gone before the objects' own finalizers could reach the API to
// delete their remote objects, leaving orphans. The Secret's finalizer goes when no object refers to it any more.
import { ApiClient, type Logger } from '@tollgate/contract';
import type { KubeClient } from '../kube/client.ts';
import { paths, secretValue, type KubeObject, type SecretObject } from '../kube/objects.ts';
import { DEFAULT_CONNECTION_SECRET, FINALIZER, KIND_NAMES } from '../kinds/specs.ts';
import { failed, waiting, type Outcome } from './outcome.ts';
import type { ObjectIndex } from './types.ts';

export type Connection = { ok: true; api: ApiClient; secretName: string } | { ok: false; missing: boolean; outcome: Outcome };

export const connectionSecretOf = (obj: KubeObject) =>
  (obj.spec as { connectionRef?: { name?: string } } | undefined)?.connectionRef?.name ?? DEFAULT_CONNECTION_SECRET;

export class Connections {
  readonly #kube: KubeClient;
  readonly #log: Logger;
  readonly #userAgent: string;

  constructor(kube: KubeClient, log: Logger, userAgent: string) {
    this.#kube = kube;
    this.#log = log;
    this.#userAgent = userAgent;
  }

  async resolve(obj: KubeObject): Promise<Connection> {
    const ns = obj.metadata.namespace!;
    const name = connectionSecretOf(obj);
    const r = await this.#kube.get<SecretObject>(paths.secret(ns, name));
    if (!r.ok && r.status === 404) {
      return { ok: false, missing: true, outcome: waiting('ConnectionSecretMissing', `Secret ${name} (keys url and token of the management API) does not exist in namespace ${ns}`, {}, 10_000) };
    }
    if (!r.ok) return { ok: false, missing: false, outcome: failed('ConnectionSecretUnreadable', `reading Secret ${name} failed: ${r.message}`) };
    const url = secretValue(r.body, 'url')?.trim();
    const token = secretValue(r.body, 'token')?.trim();
    if (!url || !token) {
      return { ok: false, missing: true, outcome: waiting('ConnectionSecretInvalid', `Secret ${name} needs the keys url and token`, {}, 30_000) };
    }
    if (!/^https?:\/\/[^/]/.test(url)) {
      return { ok: false, missing: true, outcome: waiting('ConnectionSecretInvalid', `Secret ${name}: url must be an http(s) URL of the management API`, {}, 30_000) };
    }
    if (!obj.metadata.deletionTimestamp && !r.body.metadata.deletionTimestamp && !r.body.metadata.finalizers?.includes(FINALIZER)) {
      const p = await this.#kube.patch(paths.secret(ns, name), {
        metadata: { finalizers: [...(r.body.metadata.finalizers ?? []), FINALIZER], resourceVersion: r.body.metadata.resourceVersion },
      });
      if (!p.ok && p.status !== 409) this.#log.warn('could not protect the connection Secret with a finalizer', { namespace: ns, secret: name, error: p.message });
    }
    return { ok: true, api: new ApiClient({ endpoint: url, token, userAgent: this.#userAgent }), secretName: name };
  }

  /** Removes the Secret's finalizer once no object of the namespace refers to it. */
  async releaseIfUnused(namespace: string, name: string, objects: ObjectIndex): Promise<void> {
    const inUse = KIND_NAMES.some((k) => objects.list(k, namespace).some((o) => connectionSecretOf(o) === name));
    if (inUse) return;
    const r = await this.#kube.get<SecretObject>(paths.secret(namespace, name));
    if (!r.ok) return;
    const finalizers = r.body.metadata.finalizers ?? [];
    if (!finalizers.includes(FINALIZER)) return;
    const p = await this.#kube.patch(paths.secret(namespace, name), {
      metadata: { finalizers: finalizers.filter((f) => f !== FINALIZER), resourceVersion: r.body.metadata.resourceVersion },
    });
    if (!p.ok) this.#log.warn('could not release the connection Secret', { namespace, secret: name, error: p.message });
  }
}
