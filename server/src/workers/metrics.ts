// One /metrics for `tollgate serve --workers N`: the admin port is shared like the proxy port, so a scrape reaches
// whichever worker the kernel hands it to. That worker asks the primary, which collects every worker's registry over
// the cluster's IPC channel (prom-client's AggregatorRegistry) and answers with the sum: counters and histograms add
// up, the config-version gauge is the lowest any worker serves.
import cluster from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import type { GatewayMetrics } from '../gateway/metrics.ts';

const REQUEST = 'tollgate:metrics-request';
const ANSWER = 'tollgate:metrics-answer';
/** A worker that does not answer the primary in this long fails the scrape (500), rather than hanging it. */
const ASK_TIMEOUT_MS = 10_000;

type Request = { type: typeof REQUEST; id: number };
type Answer = { type: typeof ANSWER; id: number; text?: string; error?: string };

/** Primary: answers each worker's request with the metrics of all of them. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, m: Request | undefined) => {
    if (m?.type !== REQUEST) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id: m.id, text } satisfies Answer),
      (err: unknown) => worker.send({ type: ANSWER, id: m.id, error: String(err) } satisfies Answer),
    );
  });
}

/**
 * Worker, first thing: answers the primary's collection requests, with nothing until its gateway has started (a
 * worker that did not answer would fail every scrape of the pod while it starts, e.g. a replacement).
 */
export function joinClusterMetrics(): void {
  AggregatorRegistry.setRegistries([]);
  new AggregatorRegistry(); // adds the worker's listener for the primary's collection requests
}

/** Worker, once its gateway runs: offers its registry to the collection, and answers /metrics with the sum. */
export function shareClusterMetrics(metrics: GatewayMetrics): void {
  AggregatorRegistry.setRegistries([metrics.registry]);
  const waiting = new Map<number, { resolve(text: string): void; reject(err: Error): void }>();
  let nextId = 1;
  process.on('message', (m: Answer | undefined) => {
    if (m?.type !== ANSWER) return;
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.text !== undefined) w?.resolve(m.text);
    else w?.reject(new Error(`the primary could not collect the workers' metrics: ${m.error}`));
  });
  metrics.answerWith(() => new Promise<string>((resolve, reject) => {
    const id = nextId++;
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error(`the primary did not answer with the workers' metrics within ${ASK_TIMEOUT_MS} ms`));
    }, ASK_TIMEOUT_MS);
    waiting.set(id, { resolve: (t) => { clearTimeout(timer); resolve(t); }, reject: (e) => { clearTimeout(timer); reject(e); } });
    process.send?.({ type: REQUEST, id } satisfies Request);
  }));
}
