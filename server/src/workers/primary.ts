// The primary process of `tollgate serve --workers N`: starts the worker pool, serves the management API itself when
// the role is `all` (the workers serve the gateway), and stops everything on SIGTERM or SIGINT.
import type { Config, Role } from '../config/config.ts';
import { servedHostNames } from '../gateway/host-check.ts';
import { createLogger } from '../log.ts';
import { serveClusterMetrics } from './metrics.ts';
import { startWorkerPool } from './pool.ts';

type Start = (c: Config, role: Role, gatewayAdminUrl: string) => Promise<{ apiUrl: string | undefined; close(): Promise<void> }>;

export async function serveWithWorkers(config: Config, role: Role, workers: number, start: Start): Promise<number> {
  const log = createLogger({ service: 'tollgate' });
  const stopped = new Promise<string>((resolve) => {
    process.on('SIGINT', () => resolve('SIGINT'));
    process.on('SIGTERM', () => resolve('SIGTERM'));
  });
  serveClusterMetrics();
  const pool = await startWorkerPool(workers, log);
  log.info('gateway listening', {
    url: pool.url, admin: pool.adminUrl, workers, proxyDomain: config.proxyDomain,
    hosts: servedHostNames({ proxyDomain: config.proxyDomain, host: config.host, publicHosts: config.gatewayPublicHosts }),
  });
  let api: Awaited<ReturnType<Start>> | undefined;
  try {
    // GET /api/health asks the workers' shared admin listener, as a separate API replica would.
    if (role === 'all') api = await start(config, 'api', pool.adminUrl);
  } catch (err) {
    await pool.stop();
    throw err;
  }
  if (api?.apiUrl) log.info('management API listening', { url: api.apiUrl });
  log.info('shutting down', { signal: await stopped });
  await pool.stop();
  await api?.close();
  return 0;
}
