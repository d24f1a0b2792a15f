// `tollgate operator` / `node operator/bin/tollgate-operator.mjs`: reconciles McpProxy, LlmProxy, ApiKey and RuleSet
// objects into the management API. Replicas elect a leader; only the leader watches and reconciles, the others
// stand by (and serve /healthz, /readyz and /metrics). SIGTERM finishes the reconciles in progress, releases the
// Lease so a standby takes over at once, and exits.
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { createLogger, type Logger } from '@tollgate/contract';
import { ALLOWED_API_URLS_ENV, ConfigError, describeWatchScope, loadConfig } from './config.ts';
import { Controller } from './controller.ts';
import { EventRecorder } from './events.ts';
import { startHealthServer } from './health.ts';
import { KubeClient } from './kube/client.ts';
import { LeaderElector } from './leader.ts';
import { OperatorMetrics } from './metrics.ts';
import { WorkQueue } from './queue.ts';
import { apiKeyReconciler } from './reconcile/api-key.ts';
import { Connections } from './reconcile/connection.ts';
import { llmProxyReconciler } from './reconcile/llm-proxy.ts';
import { mcpProxyReconciler } from './reconcile/mcp-proxy.ts';
import { ruleSetReconciler } from './reconcile/rule-set.ts';
import type { Reconciler } from './reconcile/types.ts';
import type { ApiUrlAllowList } from './reconcile/api-url-allow-list.ts';

/** The workspace's version, which scripts/version.mjs keeps equal to the release's. */
export const OPERATOR_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The allow-list for the start log line; unset, it is warned about once, here. */
function describeAllowList(list: ApiUrlAllowList | undefined, log: Logger): string {
  if (list) return list.toString();
  // Unset keeps today's behaviour for existing installs; the chart always sets it (docs/kubernetes.md).
  log.warn(`${ALLOWED_API_URLS_ENV} is not set: the operator sends requests, with the PAT, to whatever management API url a connection Secret names; set it to your API's URL`);
  return '(any: not set)';
}

export async function runOperator(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = []): Promise<number> {
  const log = createLogger({ component: 'operator' });
  let config;
  try {
    config = loadConfig(env, argv);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`tollgate operator: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const kc = new KubeConfig();
  let kube: KubeClient;
  try {
    kc.loadFromDefault();
    kube = new KubeClient(kc);
  } catch (err) {
    process.stderr.write(`tollgate operator: cannot load a kubeconfig (KUBECONFIG, ~/.kube/config or in-cluster): ${(err as Error).message}\n`);
    return 2;
  }

  const queue = new WorkQueue({ baseDelayMs: 500, maxDelayMs: 5 * 60_000 });
  const metrics = new OperatorMetrics(() => queue.depth);
  const controller = new Controller({
    kube, log, queue, metrics,
    events: new EventRecorder(kube, log, config.identity),
    connections: new Connections(kube, log, `tollgate-operator/${OPERATOR_VERSION}`, config.allowedApiUrls),
    reconcilers: [mcpProxyReconciler, llmProxyReconciler, apiKeyReconciler, ruleSetReconciler] as Reconciler[],
    watch: config.watch, resyncMs: config.resyncMs, stallMs: config.stallMs, watchTimeoutS: config.watchTimeoutS,
    secretPollMs: config.secretPollMs,
    workers: config.workers,
  });
  const elector = new LeaderElector(kube, {
    namespace: config.leaseNamespace, name: config.leaseName, identity: config.identity,
    leaseDurationMs: config.leaseDurationMs, renewDeadlineMs: config.renewDeadlineMs, retryPeriodMs: config.retryPeriodMs, log,
  });
  const server = await startHealthServer(config.host, config.port, {
    ready: () => (!elector.leading ? { ok: true, detail: 'standing by' } : controller.synced ? { ok: true, detail: 'leading, caches synced' } : { ok: false, detail: 'leading, caches not synced yet' }),
  }, metrics);
  const allowedApiUrls = describeAllowList(config.allowedApiUrls, log);
  const address = server.address();
  log.info('operator started', {
    version: OPERATOR_VERSION, identity: config.identity, cluster: kube.server.origin, namespaces: describeWatchScope(config.watch),
    lease: `${config.leaseNamespace}/${config.leaseName}`, health: typeof address === 'object' && address ? `http://${address.address}:${address.port}` : undefined,
    resyncS: config.resyncMs / 1000, allowedApiUrls,
  });

  let exitCode = 0;
  let stopping: Promise<void> | undefined;
  let done!: () => void;
  const finished = new Promise<void>((r) => { done = r; });
  const stop = (code: number, why: string) => {
    exitCode = Math.max(exitCode, code);
    stopping ??= (async () => {
      log.info('stopping', { why });
      elector.stop();
      await controller.stop();
      await elector.release();
      metrics.leader.set(0);
      await new Promise((r) => server.close(r));
      done();
    })();
  };
  process.once('SIGTERM', () => stop(0, 'SIGTERM'));
  process.once('SIGINT', () => stop(0, 'SIGINT'));

  const leading = await elector.acquire(() => stop(1, 'lost the leadership'));
  if (leading && !stopping) {
    metrics.leader.set(1);
    controller.start();
  }
  await finished;
  log.info('stopped', { exitCode });
  return exitCode;
}
