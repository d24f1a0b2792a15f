// Composition root: builds the services from a Config and starts the requested roles.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { listen } from './http/listen.ts';
import { AuditWriter } from './audit/writer.ts';
import { announceConfigVersion } from './snapshot/changes.ts';
import { parseMasterKey, type Config, type Role } from './config/config.ts';
import { SecretBox } from './crypto/secrets.ts';
import { openDb } from './db/open.ts';
import { createLogger, type Logger } from './log.ts';
import { UpstreamGuard, type Lookup } from './net/upstream-guard.ts';
import { openState } from './state/open.ts';
import { systemClock, type Clock, type Services } from './services.ts';
import { startGateway, type GatewayHandle } from './gateway/server.ts';
import { startBackgroundJobs } from './jobs/index.ts';

export interface StartOptions {
  role?: Role;
  log?: Logger;
  clock?: Clock;
  /** Keep PGlite in memory (tests). */
  inMemoryDb?: boolean;
  /** DNS lookup used by the SSRF guard (tests). */
  lookup?: Lookup;
  /** The api role's gateway admin listener when this process knows it (the workers' of `serve --workers`). */
  gatewayAdminUrl?: string;
}

export interface Tollgate {
  services: Services;
  apiUrl: string | undefined;
  gateway: GatewayHandle | undefined;
  close(): Promise<void>;
}

/** Embedded mode keeps a generated master key in the data dir (warned about at start). */
function embeddedMasterKey(config: Config, log: Logger, inMemory: boolean): Buffer {
  if (config.masterKey) return config.masterKey;
  if (inMemory) return randomBytes(32);
  mkdirSync(config.dataDir, { recursive: true });
  const file = join(config.dataDir, 'master.key');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
  log.warn('TOLLGATE_MASTER_KEY is not set: using the generated key in the data dir; set it in production', { file });
  return parseMasterKey(readFileSync(file, 'utf8').trim(), file)!;
}

export async function buildServices(config: Config, opts: StartOptions = {}): Promise<Services> {
  const log = opts.log ?? createLogger({ service: 'tollgate' });
  if (config.upstreamAllowCidrs.length) log.warn('TOLLGATE_UPSTREAM_ALLOW_CIDRS is set: SSRF protection is relaxed for these ranges (development and tests only)', { cidrs: config.upstreamAllowCidrs.map((c) => c.text) });
  if (config.upstreamAllowHttp) log.warn('TOLLGATE_UPSTREAM_ALLOW_HTTP is set: plain-http upstreams are allowed (development and tests only)');
  const masterKey = embeddedMasterKey(config, log, !!opts.inMemoryDb);
  const db = await openDb(config, { inMemory: opts.inMemoryDb });
  const clock = opts.clock ?? systemClock;
  const state = await openState(config, () => clock.nowMs(), log);
  const services: Services = {
    config, db, state, log, clock,
    secrets: new SecretBox(masterKey),
    audit: new AuditWriter(db, log),
    upstreams: new UpstreamGuard({ allowCidrs: config.upstreamAllowCidrs, allowHttp: config.upstreamAllowHttp, lookup: opts.lookup }),
    configChanged: (v) => announceConfigVersion(state, v),
    gatewayAdminUrl: undefined,
    metrics: undefined,
  };
  return services;
}

export async function startTollgate(config: Config, opts: StartOptions = {}): Promise<Tollgate> {
  const role = opts.role ?? 'all';
  const s = await buildServices(config, opts);
  let gateway: GatewayHandle | undefined;
  let api: Server | undefined;
  let apiUrl: string | undefined;
  const stopJobs = startBackgroundJobs(s, role);
  try {
    if (role !== 'api') {
      gateway = await startGateway(s, { host: config.host, port: config.gatewayPort, adminPort: config.gatewayAdminPort });
      const g = gateway;
      // In one process the API waits for its own gateway, so a proxy is reachable the moment create returns.
      s.configChanged = async (v) => {
        await announceConfigVersion(s.state, v);
        await g.store.waitFor(v);
      };
      s.gatewayAdminUrl = g.adminUrl;
    } else {
      s.gatewayAdminUrl = opts.gatewayAdminUrl || process.env.TOLLGATE_GATEWAY_ADMIN_URL || `http://${config.host}:${config.gatewayAdminPort}`;
    }
    if (role !== 'gateway') {
      // Loaded only by roles that serve the API, so a gateway-only replica does not carry it in memory.
      const [{ buildRouter }, { createApiServer }] = await Promise.all([import('./api/routes/index.ts'), import('./api/server.ts')]);
      api = createApiServer(buildRouter(s), s);
      apiUrl = await listen(api, config.host, config.apiPort);
    }
  } catch (err) {
    await stopJobs();
    await gateway?.close();
    await s.audit.close().catch(() => undefined);
    await s.state.close();
    await s.db.close();
    throw err;
  }
  return {
    services: s, apiUrl, gateway,
    async close() {
      await stopJobs();
      if (api) {
        api.closeAllConnections();
        await new Promise((r) => api!.close(r));
      }
      await gateway?.close();
      await s.audit.close().catch(() => undefined);
      await s.state.close();
      await s.db.close();
    },
  };
}
