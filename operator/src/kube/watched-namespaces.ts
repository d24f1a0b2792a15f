// The informers of the watched kinds, as the watch scope asks (docs/kubernetes.md#watched-namespaces):
// - all: one informer per kind across the cluster;
// - list: one informer per kind in each named namespace, and no cluster-wide request at all, so Roles in those
//   namespaces are enough;
// - selector: Namespaces are listed and watched with the label selector; a namespace that starts matching gets its
//   informers, one that stops matching (or is deleted) has them stopped, and its objects are left as they are.
// The API server does the selector's matching: a namespace whose labels stop matching comes as a DELETED event.
import type { Logger } from '@tollgate/contract';
import type { KubeClient } from './client.ts';
import { Informer, type ChangeReason, type ListBody, type ListWatchSource, type WatchRestart } from './informer.ts';
import { objectKey, paths, type KubeObject } from './objects.ts';
import { API_VERSION, type Kind } from '../kinds/specs.ts';

export type WatchScope =
  | { mode: 'all' }
  | { mode: 'list'; namespaces: string[] }
  | { mode: 'selector'; selector: string };

export interface WatchedNamespacesOptions {
  kube: KubeClient;
  log: Logger;
  scope: WatchScope;
  kinds: readonly Kind[];
  resyncMs: number;
  stallMs: number;
  watchTimeoutS: number;
  onChange(kind: Kind, obj: KubeObject, reason: ChangeReason, previous: KubeObject | undefined): void;
  onWatchRestart(kind: string, reason: WatchRestart): void;
}

/** The key of the one informer set of the `all` scope. */
const ALL = '';

function kindSource(kube: KubeClient, kind: Kind, namespace: string | undefined): ListWatchSource {
  return {
    kind, apiVersion: API_VERSION, namespace,
    list: (query) => kube.get<ListBody>(paths.customCollection(kind, namespace), query),
    watch: (query, onEvent, signal) => kube.watch(paths.customCollection(kind, namespace), query, onEvent, signal),
  };
}

function namespaceSource(kube: KubeClient, labelSelector: string): ListWatchSource {
  return {
    kind: 'Namespace', apiVersion: 'v1',
    list: (query) => kube.get<ListBody>(paths.namespaces(), { ...query, labelSelector }),
    watch: (query, onEvent, signal) => kube.watch(paths.namespaces(), { ...query, labelSelector }, onEvent, signal),
  };
}

export class WatchedNamespaces {
  readonly #o: WatchedNamespacesOptions;
  /** Per namespace (ALL for the cluster-wide set), an informer per kind. */
  readonly #sets = new Map<string, Map<Kind, Informer>>();
  #namespaces: Informer | undefined;
  #stopped = false;

  constructor(o: WatchedNamespacesOptions) {
    this.#o = o;
  }

  get synced(): boolean {
    if (this.#namespaces && !this.#namespaces.synced) return false;
    const sets = [...this.#sets.values()];
    return (sets.length > 0 || !!this.#namespaces) && sets.every((s) => [...s.values()].every((i) => i.synced));
  }

  /** The namespaces whose objects are reconciled now (ALL, '', stands for every one). */
  get namespaces(): string[] {
    return [...this.#sets.keys()];
  }

  get(kind: Kind, namespace: string, name: string): KubeObject | undefined {
    return this.#set(namespace)?.get(kind)?.get(objectKey({ namespace, name }));
  }

  /** The cached objects of a kind in one namespace, or (undefined) in every watched one. */
  list(kind: Kind, namespace?: string): KubeObject[] {
    if (namespace === undefined) return [...this.#sets.values()].flatMap((set) => set.get(kind)?.list() ?? []);
    return (this.#set(namespace)?.get(kind)?.list() ?? []).filter((o) => o.metadata.namespace === namespace);
  }

  start(): void {
    const { scope } = this.#o;
    if (scope.mode === 'all') this.#startSet(ALL);
    else if (scope.mode === 'list') for (const ns of scope.namespaces) this.#startSet(ns);
    else {
      this.#namespaces = new Informer({
        source: namespaceSource(this.#o.kube, scope.selector),
        resyncMs: this.#o.resyncMs, stallMs: this.#o.stallMs, watchTimeoutS: this.#o.watchTimeoutS, log: this.#o.log,
        onChange: (_key, ns, reason) => this.#onNamespace(ns.metadata.name, reason),
        onWatchRestart: (reason) => this.#o.onWatchRestart('Namespace', reason),
      });
      this.#namespaces.start();
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#namespaces?.stop();
    await Promise.all([...this.#sets.keys()].map((ns) => this.#stopSet(ns)));
  }

  #set(namespace: string): Map<Kind, Informer> | undefined {
    return this.#sets.get(namespace) ?? this.#sets.get(ALL);
  }

  #onNamespace(namespace: string, reason: ChangeReason): void {
    if (reason !== 'deleted') {
      if (!this.#sets.has(namespace)) this.#startSet(namespace);
      return;
    }
    if (!this.#sets.has(namespace)) return;
    this.#o.log.info('stopped watching a namespace: its labels no longer match the selector, or it was deleted', { namespace });
    void this.#stopSet(namespace);
  }

  #startSet(namespace: string): void {
    if (this.#stopped) return;
    const set = new Map<Kind, Informer>();
    for (const kind of this.#o.kinds) {
      const informer = new Informer({
        source: kindSource(this.#o.kube, kind, namespace === ALL ? undefined : namespace),
        resyncMs: this.#o.resyncMs, stallMs: this.#o.stallMs, watchTimeoutS: this.#o.watchTimeoutS, log: this.#o.log,
        onChange: (_key, obj, reason, prev) => this.#o.onChange(kind, obj, reason, prev),
        onWatchRestart: (reason) => this.#o.onWatchRestart(kind, reason),
      });
      set.set(kind, informer);
      informer.start();
    }
    this.#sets.set(namespace, set);
    if (namespace !== ALL) this.#o.log.info('watching a namespace', { namespace });
  }

  /** Stops one namespace's informers; their objects leave the cache without being reported as deleted. */
  async #stopSet(namespace: string): Promise<void> {
    const set = this.#sets.get(namespace);
    this.#sets.delete(namespace);
    await Promise.all([...(set?.values() ?? [])].map((i) => i.stop()));
  }
}
