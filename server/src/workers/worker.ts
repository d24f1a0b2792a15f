// The worker side of `tollgate serve --workers N`: the gateway role alone, on the port the primary shares.
import type { Config } from '../config/config.ts';
import type { Services } from '../services.ts';
import type { WorkerMessage } from './messages.ts';
import { joinClusterMetrics, shareClusterMetrics } from './metrics.ts';

/** Responses this worker's proxy listener sent (its share of the gateway's traffic), from its own metrics. */
async function responsesServed(s: Services): Promise<number> {
  const metric = s.metrics?.registry.getSingleMetric('tollgate_gateway_responses_total');
  const values = metric ? (await metric.get()).values : [];
  return values.reduce((sum, v) => sum + v.value, 0);
}

/**
 * Serves until SIGTERM or SIGINT (the primary's stop, or a terminal's Ctrl-C, which reaches the whole process group),
 * or until the primary is gone (its IPC channel closes), so no worker outlives it. Returns the exit code.
 */
export async function runGatewayWorker(config: Config, start: (c: Config) => Promise<{ services: Services; gateway?: { url: string; adminUrl: string }; close(): Promise<void> }>): Promise<number> {
  const stopped = new Promise<string>((resolve) => {
    // `on`, not `once`: a second signal (Ctrl-C and the primary's SIGTERM) must not kill a worker that is draining.
    process.on('SIGINT', () => resolve('SIGINT'));
    process.on('SIGTERM', () => resolve('SIGTERM'));
    process.on('disconnect', () => resolve('primary gone'));
  });
  joinClusterMetrics();
  const app = await start(config);
  if (app.services.metrics) shareClusterMetrics(app.services.metrics);
  const ready: WorkerMessage = { type: 'ready', url: app.gateway!.url, adminUrl: app.gateway!.adminUrl };
  process.send?.(ready);
  const reason = await stopped;
  app.services.log.info('gateway worker stopping', { pid: process.pid, reason, responses: await responsesServed(app.services) });
  await app.close();
  // The IPC channel to the primary would keep this process alive after its last listener closed.
  process.disconnect?.();
  return 0;
}
