// Everything a request handler or background job may use, built once at start and passed explicitly (no globals).
import type { AuditWriter } from './audit/writer.ts';
import type { Config } from './config/config.ts';
import type { SecretBox } from './crypto/secrets.ts';
import type { Db } from './db/db.ts';
import type { Logger } from './log.ts';
import type { UpstreamGuard } from './net/upstream-guard.ts';
import type { State } from './state/state.ts';
import type { GatewayMetrics } from './gateway/metrics.ts';

export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

export interface Services {
  config: Config;
  db: Db;
  state: State;
  secrets: SecretBox;
  audit: AuditWriter;
  log: Logger;
  clock: Clock;
  /** SSRF checks and DNS pinning for every upstream URL. */
  upstreams: UpstreamGuard;
  /** Called after a committed change the gateway must see (publishes the new config version). */
  configChanged(version: number): Promise<void>;
  /** The gateway's Prometheus metrics (unset in a process without the gateway role). */
  metrics: GatewayMetrics | undefined;
  /** Gateway admin base URL the health endpoint probes (unset when no gateway runs alongside). */
  gatewayAdminUrl: string | undefined;
}

export const unixNow = (clock: Clock) => Math.floor(clock.nowMs() / 1000);
