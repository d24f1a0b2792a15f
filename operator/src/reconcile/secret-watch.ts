// Noticing a changed Secret without watching every Secret of the cluster: the Secrets the reconcilers read are
// remembered with their resourceVersion and the objects that read them, and looked at again every few seconds
// (one GET each, which the operator's RBAC already allows); a new version, or a deleted Secret, queues its readers.
// So a rotated provider key or upstream token reaches the API within the poll interval, not at the next resync.
import type { KubeClient } from '../kube/client.ts';
import { paths, type SecretObject } from '../kube/objects.ts';
import { readSecretKey, secretVersionOf, type SecretRead } from './secrets.ts';

interface Tracked { version: string; readers: Set<string> }

export class SecretWatch {
  readonly #kube: KubeClient;
  readonly #tracked = new Map<string, Tracked>();
  readonly #onChange: (reader: string) => void;
  #timer: NodeJS.Timeout | undefined;
  #polling = false;

  constructor(kube: KubeClient, onChange: (reader: string) => void) {
    this.#kube = kube;
    this.#onChange = onChange;
  }

  /** Reads a Secret's key for `reader` (a work-queue key) and remembers that it depends on that Secret. */
  async read(reader: string, namespace: string, ref: { name: string; key: string }, what: string): Promise<SecretRead> {
    const r = await readSecretKey(this.#kube, namespace, ref, what);
    const id = `${namespace}/${ref.name}`;
    const t = this.#tracked.get(id) ?? { version: '', readers: new Set<string>() };
    t.readers.add(reader);
    t.version = r.ok ? r.version : '';
    this.#tracked.set(id, t);
    return r;
  }

  /** The reader reads its Secrets afresh (a reconcile starts, or the object is gone): it depends on none until then. */
  forget(reader: string): void {
    for (const [id, t] of this.#tracked) {
      t.readers.delete(reader);
      if (!t.readers.size) this.#tracked.delete(id);
    }
  }

  start(intervalMs: number): void {
    this.#timer = setInterval(() => { void this.#poll(); }, intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async #poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      for (const [id, t] of [...this.#tracked]) {
        const [namespace, name] = [id.slice(0, id.indexOf('/')), id.slice(id.indexOf('/') + 1)];
        const r = await this.#kube.get<SecretObject>(paths.secret(namespace, name));
        if (!r.ok && r.status !== 404) continue; // unreachable: look again next time
        const version = r.ok ? secretVersionOf(r.body) : '';
        if (version === t.version) continue;
        t.version = version;
        for (const reader of t.readers) this.#onChange(reader);
      }
    } finally {
      this.#polling = false;
    }
  }
}
