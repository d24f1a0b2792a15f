// The controller: informers feed a work queue of `Kind/namespace/name` keys; workers take one key at a time and
// run the cycle every object goes through:
//   deleted → the reconciler's cleanup, then the finalizer goes (and the connection Secret's, once unused);
//   otherwise → the finalizer first (before anything remote exists), the spec checked by the contract, the
//   connection resolved, the reconciler's outcome written as status (observedGeneration, the whole conditions
//   list), an Event when something happened or failed, and the key queued again as the outcome asks.
import type { Logger } from '@tollgate/contract';
import type { KubeClient } from './kube/client.ts';
import type { ChangeReason } from './kube/informer.ts';
import { paths, type KubeObject } from './kube/objects.ts';
import { WatchedNamespaces, type WatchScope } from './kube/watched-namespaces.ts';
import { FINALIZER, KIND_NAMES, type Kind } from './kinds/specs.ts';
import type { EventRecorder } from './events.ts';
import type { OperatorMetrics } from './metrics.ts';
import { WorkQueue } from './queue.ts';
import { Connections, connectionSecretOf } from './reconcile/connection.ts';
import { SecretWatch } from './reconcile/secret-watch.ts';
import { invalid, nextConditions, type Outcome } from './reconcile/outcome.ts';
import { sameValue } from './reconcile/compare.ts';
import type { ObjectIndex, Reconciler } from './reconcile/types.ts';

export interface ControllerOptions {
  kube: KubeClient;
  log: Logger;
  events: EventRecorder;
  metrics: OperatorMetrics;
  connections: Connections;
  reconcilers: readonly Reconciler[];
  /** Which namespaces are reconciled (kube/watched-namespaces.ts). */
  watch: WatchScope;
  resyncMs: number;
  stallMs: number;
  watchTimeoutS: number;
  workers: number;
  queue: WorkQueue;
  /** How often the Secrets the objects read are looked at again (0: only at reconciles). */
  secretPollMs: number;
}

const queueKey = (kind: Kind, namespace: string, name: string) => `${kind}/${namespace}/${name}`;
/** Queue keys `Connection/<namespace>/<secret>`: release the connection Secret's finalizer if no object uses it. */
const CONNECTION = 'Connection';

function splitQueueKey(k: string): { kind: Kind; namespace: string; name: string } {
  const [kind, namespace, ...rest] = k.split('/');
  return { kind: kind as Kind, namespace: namespace!, name: rest.join('/') };
}

/** Whether a change is one the object's own reconcile must see (not its status or resourceVersion alone). */
function specChanged(prev: KubeObject | undefined, obj: KubeObject): boolean {
  if (!prev) return true;
  const m = (o: KubeObject) => [o.metadata.generation, o.metadata.deletionTimestamp, o.metadata.finalizers, o.metadata.annotations];
  return !sameValue(m(prev), m(obj));
}

export class Controller implements ObjectIndex {
  readonly #o: ControllerOptions;
  readonly #watched: WatchedNamespaces;
  readonly #reconcilers = new Map<Kind, Reconciler>();
  readonly #secrets: SecretWatch;
  #workers: Promise<void>[] = [];

  constructor(o: ControllerOptions) {
    this.#o = o;
    this.#secrets = new SecretWatch(o.kube, (reader) => o.queue.add(reader));
    for (const r of o.reconcilers) this.#reconcilers.set(r.kind, r);
    this.#watched = new WatchedNamespaces({
      kube: o.kube, log: o.log, scope: o.watch, kinds: KIND_NAMES,
      resyncMs: o.resyncMs, stallMs: o.stallMs, watchTimeoutS: o.watchTimeoutS,
      onChange: (kind, obj, reason, prev) => this.#onChange(kind, obj, reason, prev),
      onWatchRestart: (kind, reason) => o.metrics.watchRestarts.inc({ kind, reason }),
    });
  }

  get synced(): boolean {
    return this.#watched.synced;
  }

  get(kind: Kind, namespace: string, name: string): KubeObject | undefined {
    return this.#watched.get(kind, namespace, name);
  }

  list(kind: Kind, namespace?: string): KubeObject[] {
    return this.#watched.list(kind, namespace);
  }

  start(): void {
    this.#watched.start();
    this.#workers = Array.from({ length: this.#o.workers }, () => this.#work());
    if (this.#o.secretPollMs > 0) this.#secrets.start(this.#o.secretPollMs);
  }

  /** Stops taking work, lets the reconciles in progress finish, stops the watches. */
  async stop(): Promise<void> {
    this.#secrets.stop();
    this.#o.queue.shutdown();
    await Promise.all(this.#workers);
    await this.#watched.stop();
  }

  #onChange(kind: Kind, obj: KubeObject, reason: ChangeReason, prev: KubeObject | undefined): void {
    const ns = obj.metadata.namespace ?? '';
    // Once an object is gone from the cache, its connection Secret may be unused: looked at after the cache says so
    // (several objects finalized at once would each still see the others if they looked themselves).
    if (reason === 'deleted') this.#o.queue.add(`${CONNECTION}/${ns}/${connectionSecretOf(obj)}`);
    // An ApiKey on shared proxies holds its key through another namespace's connection (status.connection): once it
    // lets go of it (the key deleted, or the ApiKey gone), that Secret may be unused too.
    const held = releasedConnection(prev ?? obj, reason === 'deleted' ? undefined : obj);
    if (held) this.#o.queue.add(`${CONNECTION}/${held}`);
    if (reason !== 'modified' || specChanged(prev, obj)) this.#o.queue.add(queueKey(kind, ns, obj.metadata.name));
    this.#queueDependents(kind, obj, reason, prev);
  }

  /**
   * Dependents wait for this object's status (its id, its tools) and obey its spec (a proxy's grants): they look
   * again when either changes or the object goes.
   */
  #queueDependents(kind: Kind, obj: KubeObject, reason: ChangeReason, prev: KubeObject | undefined): void {
    const r = this.#reconcilers.get(kind);
    if (!r?.dependents || (reason === 'modified' && sameValue(prev?.status, obj.status) && sameValue(prev?.spec, obj.spec))) return;
    for (const d of r.dependents(obj, this)) this.#o.queue.add(queueKey(d.kind, d.namespace, d.name));
  }

  async #work(): Promise<void> {
    for (;;) {
      const key = await this.#o.queue.next();
      if (key === undefined) return;
      const { kind } = splitQueueKey(key);
      const end = this.#o.metrics.duration.startTimer({ kind });
      try {
        await this.#process(key);
      } catch (err) {
        this.#o.log.error('reconcile threw', { key, error: err });
        this.#o.metrics.reconciles.inc({ kind, result: 'error' });
        this.#o.queue.addRateLimited(key);
      } finally {
        end();
        this.#o.queue.done(key);
      }
    }
  }

  async #process(key: string): Promise<void> {
    if (key.startsWith(`${CONNECTION}/`)) {
      const { namespace, name } = splitQueueKey(key);
      return this.#o.connections.releaseIfUnused(namespace, name, this);
    }
    const { kind, namespace, name } = splitQueueKey(key);
    const reconciler = this.#reconcilers.get(kind)!;
    let obj = this.get(kind, namespace, name);
    this.#secrets.forget(key);
    if (!obj) {
      this.#o.queue.forget(key);
      return;
    }
    const log = this.#o.log.child({ kind, object: `${namespace}/${name}` });
    if (obj.metadata.deletionTimestamp) return this.#finalize(key, reconciler, obj, log);

    const parsed = reconciler.spec.safeParse(obj.spec);
    if (!parsed.success) return this.#settle(key, obj, invalid('InvalidSpec', specProblem(parsed.error.issues[0])), log);
    obj = await this.#withFinalizer(key, obj, log);
    if (!obj) return;
    const typed = { ...obj, spec: parsed.data } as KubeObject;
    const via = reconciler.connectionOf?.(typed, this);
    if (via && 'refused' in via) return this.#settle(key, obj, via.refused, log);
    const conn = via ? await this.#o.connections.resolveAt(via, true) : await this.#o.connections.resolve(obj);
    if (!conn.ok) return this.#settle(key, obj, conn.outcome, log);
    const readSecret = (ref: { name: string; key: string }, what: string) => this.#secrets.read(key, namespace, ref, what);
    const outcome = await reconciler.reconcile({ kube: this.#o.kube, api: conn.api, objects: this, log, readSecret }, typed);
    await this.#settle(key, obj, outcome, log);
  }

  /** The object carrying our finalizer (added if missing); undefined when adding it failed and the key was handled. */
  async #withFinalizer(key: string, obj: KubeObject, log: Logger): Promise<KubeObject | undefined> {
    if (obj.metadata.finalizers?.includes(FINALIZER)) return obj;
    const { kind, namespace, name } = splitQueueKey(key);
    const r = await this.#o.kube.patch<KubeObject>(paths.custom(kind, namespace, name), {
      metadata: { finalizers: [...(obj.metadata.finalizers ?? []), FINALIZER], resourceVersion: obj.metadata.resourceVersion },
    });
    if (r.ok) return r.body;
    if (r.status !== 404 && r.status !== 409) log.warn('adding the finalizer failed', { error: r.message });
    if (r.status !== 404) this.#o.queue.addRateLimited(key);
    return undefined;
  }

  async #finalize(key: string, reconciler: Reconciler, obj: KubeObject, log: Logger): Promise<void> {
    const { kind, namespace, name } = splitQueueKey(key);
    if (!obj.metadata.finalizers?.includes(FINALIZER)) return;
    const parsed = reconciler.spec.safeParse(obj.spec);
    const typed = { ...obj, spec: parsed.success ? parsed.data : obj.spec } as KubeObject;
    const conn = await this.#cleanupConnection(reconciler, typed, parsed.success);
    let blocked: Outcome | undefined;
    if (conn.ok) {
      const readSecret = (ref: { name: string; key: string }, what: string) => this.#secrets.read(key, namespace, ref, what);
      blocked = await reconciler.cleanup({ kube: this.#o.kube, api: conn.api, objects: this, log, readSecret }, typed);
    } else if (conn.missing && !obj.status?.id) {
      // No connection and no remote id: it never reached the API (its connection Secret, protected by our finalizer
      // once used, never existed), so there is nothing remote to delete.
      blocked = undefined;
    } else {
      blocked = conn.outcome;
      blocked.event = { type: 'Warning', reason: 'CleanupBlocked', message: `Cannot delete the remote object: ${conn.outcome.synced.message}. Restore the connection Secret, or remove the finalizer ${FINALIZER} by hand to leave the remote object behind.` };
    }
    if (blocked) {
      this.#o.metrics.errors.inc({ kind, reason: blocked.synced.reason });
      return this.#settle(key, obj, { ...blocked, ready: { status: 'False', reason: 'Deleting', message: blocked.synced.message } }, log);
    }
    const finalizers = obj.metadata.finalizers.filter((f) => f !== FINALIZER);
    const r = await this.#o.kube.patch(paths.custom(kind, namespace, name), { metadata: { finalizers, resourceVersion: obj.metadata.resourceVersion } });
    if (!r.ok && r.status !== 404) {
      if (r.status !== 409) log.warn('removing the finalizer failed', { error: r.message });
      this.#o.queue.addRateLimited(key);
      return;
    }
    log.info('deleted the remote object');
    this.#o.metrics.reconciles.inc({ kind, result: 'deleted' });
    this.#o.queue.forget(key);
  }

  /**
   * The remote object is deleted (or orphaned) through the connection it was made through, which for an ApiKey on
   * shared proxies is not its own (its status records which).
   */
  async #cleanupConnection(reconciler: Reconciler, typed: KubeObject, parsed: boolean) {
    const via = parsed ? reconciler.connectionOf?.(typed, this) : undefined;
    return via && !('refused' in via) ? this.#o.connections.resolveAt(via, false) : this.#o.connections.resolve(typed);
  }

  /** Writes the outcome as status (when it changed), records its Event, and queues the key again as it asks. */
  async #settle(key: string, obj: KubeObject, o: Outcome, log: Logger): Promise<void> {
    const { kind, namespace, name } = splitQueueKey(key);
    const prev = obj.status ?? {};
    const conditions = nextConditions(prev.conditions, o, obj.metadata.generation, new Date());
    const status = { ...prev, ...o.fields, observedGeneration: obj.metadata.generation, conditions };
    if (!sameValue(status, prev)) {
      // A merge patch replaces lists whole: the conditions list is always sent complete.
      const r = await this.#o.kube.patch(paths.customStatus(kind, namespace, name), { status });
      if (!r.ok && r.status !== 404) log.warn('writing the status failed', { status: r.status, error: r.message });
    }
    if (o.event) await this.#o.events.record(obj, o.event.type, o.event.reason, o.event.message);
    this.#o.metrics.reconciles.inc({ kind, result: resultOf(o) });
    if (o.synced.status !== 'True' || o.ready.status !== 'True') this.#reportNotReady(kind, o, log);
    this.#requeue(key, o.requeue);
  }

  #reportNotReady(kind: string, o: Outcome, log: Logger): void {
    this.#o.metrics.errors.inc({ kind, reason: o.ready.status !== 'True' && o.synced.status === 'True' ? o.ready.reason : o.synced.reason });
    log.info('not ready', { reason: o.synced.status === 'True' ? o.ready.reason : o.synced.reason, message: o.synced.status === 'True' ? o.ready.message : o.synced.message });
  }

  #requeue(key: string, requeue: Outcome['requeue']): void {
    if (requeue.kind === 'backoff') this.#o.queue.addRateLimited(key);
    else {
      this.#o.queue.forget(key);
      if (requeue.kind === 'after') this.#o.queue.addAfter(key, requeue.ms);
    }
  }
}

/** The connection (`<namespace>/<name>`) an ApiKey held its remote key through and holds no longer. */
function releasedConnection(prev: KubeObject, now: KubeObject | undefined): string | undefined {
  const held = prev.status?.connection;
  return typeof held === 'string' && held && held !== now?.status?.connection ? held : undefined;
}

/** The `result` label of the reconciles metric. */
function resultOf(o: Outcome): string {
  if (o.synced.status === 'True') return 'synced';
  if (o.requeue.kind === 'backoff') return 'error';
  return o.synced.reason === 'InvalidSpec' || o.synced.reason === 'RemoteRejected' || o.synced.reason === 'InvalidRules' ? 'invalid' : 'waiting';
}

/** The first schema issue as the InvalidSpec message: `spec.<path>: <message>`. */
function specProblem(issue: { path: PropertyKey[]; message: string } | undefined): string {
  const where = issue?.path.length ? `spec.${issue.path.join('.')}: ` : 'spec: ';
  return where + (issue?.message ?? 'invalid');
}
