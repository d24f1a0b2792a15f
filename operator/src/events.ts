// Kubernetes Events about the objects (kubectl describe shows them). The same event for the same object within ten
// minutes updates the count of the first one instead of adding another, as kubelet and controllers do, so a retry
// loop cannot flood the namespace.
import type { Logger } from '@tollgate/contract';
import type { KubeClient } from './kube/client.ts';
import { paths, type KubeObject } from './kube/objects.ts';

const DEDUPE_MS = 10 * 60_000;
const MAX_REMEMBERED = 2_000;

interface Seen { name: string; count: number; at: number }

export class EventRecorder {
  readonly #kube: KubeClient;
  readonly #log: Logger;
  readonly #instance: string;
  readonly #seen = new Map<string, Seen>();

  constructor(kube: KubeClient, log: Logger, instance: string) {
    this.#kube = kube;
    this.#log = log;
    this.#instance = instance;
  }

  async record(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    const ns = obj.metadata.namespace!;
    const now = new Date();
    const ts = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const id = `${obj.metadata.uid}\u0000${type}\u0000${reason}\u0000${message}`;
    const seen = this.#seen.get(id);
    if (seen && now.getTime() - seen.at < DEDUPE_MS) {
      seen.count++;
      seen.at = now.getTime();
      const r = await this.#kube.patch(`${paths.events(ns)}/${seen.name}`, { count: seen.count, lastTimestamp: ts });
      if (r.ok) return;
    }
    const r = await this.#kube.create<{ metadata: { name: string } }>(paths.events(ns), {
      apiVersion: 'v1', kind: 'Event',
      metadata: { generateName: `${obj.metadata.name}.`, namespace: ns },
      involvedObject: { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, namespace: ns, uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion },
      type, reason, message: message.slice(0, 1024),
      source: { component: 'tollgate-operator' }, reportingComponent: 'tollgate.dev/operator', reportingInstance: this.#instance,
      firstTimestamp: ts, lastTimestamp: ts, count: 1,
    });
    if (!r.ok) {
      this.#log.warn('recording an event failed', { object: `${ns}/${obj.metadata.name}`, reason, error: r.message });
      return;
    }
    if (this.#seen.size >= MAX_REMEMBERED) this.#seen.delete(this.#seen.keys().next().value!);
    this.#seen.set(id, { name: r.body.metadata.name, count: 1, at: now.getTime() });
  }
}
