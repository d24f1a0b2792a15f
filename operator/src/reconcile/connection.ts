// The connection to the management API: the Secret tollgate-connection (or spec.connectionRef.name) in the object's
// namespace, with the keys `url` and `token` (a PAT; its user owns the remote objects).
//
// Its url must be one the operator is allowed to call (api-url-allow-list.ts): the namespace's users write the Secret,
// and a url outside the list gets no request at all, not even with another path.
//
// The operator puts its finalizer on that Secret while objects use it. Deleting a namespace deletes everything in it
// at once; without the finalizer the Secret would be gone before the objects' own finalizers could reach the API to
// delete their remote objects, leaving orphans. The Secret's finalizer goes when no object refers to it any more.
import { ApiClient, type Logger } from '@tollgate/contract';
import type { KubeClient } from '../kube/client.ts';
import { paths, secretValue, type KubeObject, type SecretObject } from '../kube/objects.ts';
import { DEFAULT_CONNECTION_SECRET, FINALIZER, KIND_NAMES } from '../kinds/specs.ts';
import { endpointOf, parseApiUrl, type ApiUrlAllowList } from './api-url-allow-list.ts';
import { failed, waiting, type Outcome } from './outcome.ts';
import type { ConnectionRef, ObjectIndex } from './types.ts';

export type Connection = { ok: true; api: ApiClient; secretName: string } | { ok: false; missing: boolean; outcome: Outcome };

export const connectionSecretOf = (obj: KubeObject) =>
  (obj.spec as { connectionRef?: { name?: string } } | undefined)?.connectionRef?.name ?? DEFAULT_CONNECTION_SECRET;

/** `<namespace>/<name>`: how an ApiKey's status records the connection its remote key was made through. */
export const connectionKey = (ref: ConnectionRef) => `${ref.namespace}/${ref.name}`;

export function parseConnectionKey(value: unknown): ConnectionRef | undefined {
  if (typeof value !== 'string') return undefined;
  const [namespace, name, ...rest] = value.split('/');
  return namespace && name && !rest.length ? { namespace, name } : undefined;
}

/** The connections ApiKeys of any namespace hold their remote keys through (status.connection). */
const heldByKeys = (objects: ObjectIndex) => new Set(objects.list('ApiKey').map((k) => k.status?.connection).filter((c) => typeof c === 'string' && c));

export class Connections {
  readonly #kube: KubeClient;
  readonly #log: Logger;
  readonly #userAgent: string;
  readonly #allowed: ApiUrlAllowList | undefined;

  /** `allowed` undefined: every URL (TOLLGATE_OPERATOR_ALLOWED_API_URLS not set). */
  constructor(kube: KubeClient, log: Logger, userAgent: string, allowed: ApiUrlAllowList | undefined) {
    this.#kube = kube;
    this.#log = log;
    this.#userAgent = userAgent;
    this.#allowed = allowed;
  }

  async resolve(obj: KubeObject): Promise<Connection> {
    return this.resolveAt({ namespace: obj.metadata.namespace!, name: connectionSecretOf(obj) }, !obj.metadata.deletionTimestamp);
  }

  /** The connection Secret `ref`; `protect`: put the finalizer on it (not for an object that is being deleted). */
  async resolveAt(ref: ConnectionRef, protect: boolean): Promise<Connection> {
    const { namespace: ns, name } = ref;
    const r = await this.#kube.get<SecretObject>(paths.secret(ns, name));
    if (!r.ok && r.status === 404) {
      return { ok: false, missing: true, outcome: waiting('ConnectionSecretMissing', `Secret ${name} (keys url and token of the management API) does not exist in namespace ${ns}`, {}, 10_000) };
    }
    if (!r.ok) return { ok: false, missing: false, outcome: failed('ConnectionSecretUnreadable', `reading Secret ${name} failed: ${r.message}`) };
    const target = this.#target(name, r.body);
    if (!target.ok) return { ok: false, missing: true, outcome: target.outcome };
    if (protect) await this.#protect(ns, name, r.body);
    return { ok: true, api: new ApiClient({ endpoint: target.endpoint, token: target.token, userAgent: this.#userAgent }), secretName: name };
  }

  /**
   * The API endpoint and PAT of a connection Secret, when they are usable: an invalid url or one outside the
   * allow-list is an outcome before anything is sent (`missing` for the caller: nothing was ever sent through it, so
   * an object without a remote id can go at once).
   */
  #target(name: string, secret: SecretObject): { ok: true; endpoint: string; token: string } | { ok: false; outcome: Outcome } {
    const url = secretValue(secret, 'url')?.trim();
    const token = secretValue(secret, 'token')?.trim();
    if (!url || !token) return { ok: false, outcome: waiting('ConnectionSecretInvalid', `Secret ${name} needs the keys url and token`, {}, 30_000) };
    const parsed = parseApiUrl(url);
    if (!parsed) {
      return { ok: false, outcome: waiting('ConnectionSecretInvalid', `Secret ${name}: url must be an http(s) URL of the management API, without credentials, query or fragment`, {}, 30_000) };
    }
    const endpoint = endpointOf(parsed);
    if (this.#allowed && !this.#allowed.allows(parsed)) {
      return { ok: false, outcome: waiting('ConnectionNotAllowed', `Secret ${name}: url ${endpoint.slice(0, 200)} is not one of the management API URLs this operator may call (TOLLGATE_OPERATOR_ALLOWED_API_URLS); nothing was sent to it`, {}, 30_000) };
    }
    return { ok: true, endpoint, token };
  }

  /** The finalizer on a Secret that is about to be used (not once it is being deleted). */
  async #protect(ns: string, name: string, secret: SecretObject): Promise<void> {
    if (secret.metadata.deletionTimestamp || secret.metadata.finalizers?.includes(FINALIZER)) return;
    const p = await this.#kube.patch(paths.secret(ns, name), {
      metadata: { finalizers: [...(secret.metadata.finalizers ?? []), FINALIZER], resourceVersion: secret.metadata.resourceVersion },
    });
    if (!p.ok && p.status !== 409) this.#log.warn('could not protect the connection Secret with a finalizer', { namespace: ns, secret: name, error: p.message });
  }

  /**
   * Removes the Secret's finalizer once no object of the namespace refers to it and no ApiKey (of any namespace) holds
   * a remote key made through it: those keys are deleted through it when their grant goes.
   */
  async releaseIfUnused(namespace: string, name: string, objects: ObjectIndex): Promise<void> {
    const inUse = KIND_NAMES.some((k) => objects.list(k, namespace).some((o) => connectionSecretOf(o) === name));
    if (inUse || heldByKeys(objects).has(connectionKey({ namespace, name }))) return;
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
