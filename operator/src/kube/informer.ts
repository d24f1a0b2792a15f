// A list-watch cache of one collection: a kind in one namespace or in all, or the Namespaces a selector matches
// (watched-namespaces.ts). It lists, then watches from the list's resourceVersion, and keeps going:
// - a watch the server closes (its timeout) resumes from the last resourceVersion seen (events or bookmarks);
// - 410 Gone (the resourceVersion was compacted away) relists, and the relist is diffed against the cache, so an
//   object deleted while no watch was open is still reported as deleted: no event is lost;
// - a watch that delivers nothing, not even a bookmark, for `stallMs` is abandoned and reopened (the client
//   library's own informer can hang on a silently dead connection);
// - every `resyncMs` a full relist reports every object again (reason "resync"), which is what repairs drift made
//   behind the operator's back.
import type { KubeResult, RequestOptions, WatchEvent } from './client.ts';
import { objectKey, type KubeObject } from './objects.ts';
import type { Logger } from '@tollgate/contract';

export type ChangeReason = 'added' | 'modified' | 'deleted' | 'resync';
export type WatchRestart = 'closed' | 'gone' | 'stalled' | 'error';

export interface ListBody { metadata: { resourceVersion: string; continue?: string }; items: KubeObject[] }

/** What an informer lists and watches: one collection of the API server (watched-namespaces.ts makes them). */
export interface ListWatchSource {
  /** Given to list items, which the API server sends without kind and apiVersion; and named in logs. */
  kind: string;
  apiVersion: string;
  /** The namespace watched, for logs; undefined: all. */
  namespace?: string;
  list(query: RequestOptions['query']): Promise<KubeResult<ListBody>>;
  watch(query: RequestOptions['query'], onEvent: (e: WatchEvent) => void, signal: AbortSignal): Promise<{ status: number; error?: string }>;
}

export interface InformerOptions {
  source: ListWatchSource;
  resyncMs: number;
  stallMs: number;
  /** Asked of the server for each watch (it closes the watch after about this long). */
  watchTimeoutS: number;
  /** `obj` is the object as it is now, or as it was last seen when deleted; `previous` the cached state before. */
  onChange(key: string, obj: KubeObject, reason: ChangeReason, previous?: KubeObject): void;
  onWatchRestart?(reason: WatchRestart): void;
  log: Logger;
}

const PAGE = 500;

/** What a refused list most likely means, appended to the log line. */
const LIST_HINTS: Record<number, string> = {
  404: ' (is its CustomResourceDefinition installed? kubectl apply -f crds/)',
  403: ' (the operator\'s ServiceAccount may not list here: with watched namespaces it needs a RoleBinding in each, docs/kubernetes.md#watched-namespaces)',
};

export class Informer {
  readonly #o: InformerOptions;
  readonly #cache = new Map<string, KubeObject>();
  readonly #stop = new AbortController();
  #synced = false;
  #running: Promise<void> | undefined;

  constructor(o: InformerOptions) {
    this.#o = o;
  }

  /** Where this cache is, for log lines. */
  get #where(): { kind: string; namespace: string } {
    return { kind: this.#o.source.kind, namespace: this.#o.source.namespace ?? '(all)' };
  }

  get synced(): boolean { return this.#synced; }
  get(key: string): KubeObject | undefined { return this.#cache.get(key); }
  list(): KubeObject[] { return [...this.#cache.values()]; }

  start(): void {
    this.#running ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#running;
  }

  async #run(): Promise<void> {
    let failures = 0;
    let resync = false;
    while (!this.#stop.signal.aborted) {
      const rv = await this.#relist(resync);
      if (rv === undefined) {
        failures++;
        await this.#sleep(Math.min(30_000, 500 * 2 ** Math.min(failures, 6)));
        continue;
      }
      failures = 0;
      const relistAt = Date.now() + this.#o.resyncMs;
      resync = await this.#watchUntilRelist(rv, relistAt);
    }
  }

  /** Watches from `rv` until the next resync is due (returns true) or the resourceVersion is gone (returns false). */
  async #watchUntilRelist(startRv: string, relistAt: number): Promise<boolean> {
    let rv = startRv;
    let errors = 0;
    while (!this.#stop.signal.aborted) {
      const remaining = relistAt - Date.now();
      if (remaining <= 0) return true;
      const r = await this.#watchOnce(rv, Math.min(this.#o.watchTimeoutS, Math.ceil(remaining / 1000)));
      rv = r.rv;
      if (this.#stop.signal.aborted) return false;
      this.#o.onWatchRestart?.(r.end);
      if (r.end === 'gone') {
        this.#o.log.info('watch resourceVersion expired (410 Gone); relisting', this.#where);
        return false;
      }
      if (r.end === 'stalled') this.#o.log.warn('watch delivered nothing, not even a bookmark; reopening it', { ...this.#where, stallS: this.#o.stallMs / 1000 });
      if (r.end === 'error') {
        errors++;
        this.#o.log.warn('watch failed; retrying', { ...this.#where, error: r.error });
        await this.#sleep(Math.min(30_000, 250 * 2 ** Math.min(errors, 7)));
      } else {
        errors = 0;
      }
    }
    return false;
  }

  async #watchOnce(rv: string, timeoutS: number): Promise<{ rv: string; end: WatchRestart; error?: string }> {
    const abort = new AbortController();
    const onStop = () => abort.abort();
    this.#stop.signal.addEventListener('abort', onStop);
    let end: WatchRestart = 'closed';
    let error: string | undefined;
    let stallTimer: NodeJS.Timeout | undefined;
    const armStall = () => {
      clearTimeout(stallTimer);
      stallTimer = setTimeout(() => { end = 'stalled'; abort.abort(); }, this.#o.stallMs);
    };
    armStall();
    const onEvent = (e: WatchEvent) => {
      armStall();
      if (e.type === 'ERROR') {
        const status = e.object as { code?: number; message?: string };
        end = status.code === 410 ? 'gone' : 'error';
        error = status.message;
        abort.abort();
        return;
      }
      const obj = e.object as unknown as KubeObject;
      const nextRv = obj.metadata?.resourceVersion;
      if (nextRv) rv = nextRv;
      if (e.type === 'BOOKMARK') return;
      const key = objectKey(obj.metadata);
      const previous = this.#cache.get(key);
      if (e.type === 'DELETED') {
        this.#cache.delete(key);
        this.#emit(key, { ...obj, kind: this.#o.source.kind }, 'deleted', previous);
      } else {
        this.#cache.set(key, obj);
        this.#emit(key, obj, previous ? 'modified' : 'added', previous);
      }
    };
    const r = await this.#o.source.watch({ resourceVersion: rv, allowWatchBookmarks: true, timeoutSeconds: timeoutS }, onEvent, abort.signal);
    clearTimeout(stallTimer);
    this.#stop.signal.removeEventListener('abort', onStop);
    if (r.status === 410) end = 'gone';
    else if (end === 'closed' && (r.status !== 200 || (r.error && r.error !== 'aborted'))) {
      end = 'error';
      error = r.error ?? `HTTP ${r.status}`;
    }
    return { rv, end, error };
  }

  /** Lists every page; reports what changed against the cache (everything, on a resync). Returns the list's rv. */
  async #relist(resync: boolean): Promise<string | undefined> {
    const seen = new Map<string, KubeObject>();
    let cont: string | undefined;
    let rv = '';
    do {
      const r = await this.#o.source.list({ limit: PAGE, continue: cont });
      if (!r.ok) {
        this.#o.log.warn(`listing failed${LIST_HINTS[r.status] ?? ''}`, { ...this.#where, status: r.status, error: r.message });
        return undefined;
      }
      for (const item of r.body.items) {
        seen.set(objectKey(item.metadata), { ...item, kind: this.#o.source.kind, apiVersion: this.#o.source.apiVersion });
      }
      cont = r.body.metadata.continue || undefined;
      rv = r.body.metadata.resourceVersion;
    } while (cont);
    for (const [key, old] of [...this.#cache]) {
      if (!seen.has(key)) {
        this.#cache.delete(key);
        this.#emit(key, old, 'deleted', old);
      }
    }
    for (const [key, obj] of seen) {
      const old = this.#cache.get(key);
      this.#cache.set(key, obj);
      if (!old) this.#emit(key, obj, 'added');
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.#emit(key, obj, 'modified', old);
      else if (resync) this.#emit(key, obj, 'resync', old);
    }
    this.#synced = true;
    return rv;
  }

  /** A handler that throws on one odd object must not end the watch loop (and with it the process). */
  #emit(key: string, obj: KubeObject, reason: ChangeReason, previous?: KubeObject): void {
    try {
      this.#o.onChange(key, obj, reason, previous);
    } catch (err) {
      this.#o.log.error('handling a change failed', { ...this.#where, key, reason, error: err });
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      const signal = this.#stop.signal;
      function done() { clearTimeout(t); signal.removeEventListener('abort', done); resolve(); }
      signal.addEventListener('abort', done);
    });
  }
}
