// What the data plane is given to work with, named one capability at a time. The gateway never sees the whole
// Services bag of the process (server/src/services.ts): a module asks for the capabilities it uses, so a unit test
// builds exactly those (testkit/src/exchange.ts) and a new dependency of the request path shows up here.
// Services has every member below, so the composition root passes it as it is.
import type { AuditEvent } from '../audit/writer.ts';
import type { Config } from '../config/config.ts';
import type { ConversationLog } from '../conversation-logs/store.ts';
import type { SecretBox } from '../crypto/secrets.ts';
import type { Db } from '../db/db.ts';
import type { Logger } from '../log.ts';
import type { Clock } from '../services.ts';
import type { State } from '../state/state.ts';
import type { UsageIncrement } from '../usage/rows.ts';
import type { StreamEnd } from './llm/stream-checkpoints.ts';
import type { GatewayMetrics } from './metrics.ts';

export type { Clock };

/** The hot state calls of the request path: rate-limit counters and bans, static_cache entries. */
export type StateCapability = Pick<State, 'get' | 'getBuffer' | 'incr' | 'set' | 'setCached' | 'del'>;

export type Log = Pick<Logger, 'info' | 'warn' | 'error'>;

/** Where the gateway's audit events go: appended to a buffer that is written in batches (audit/writer.ts). */
export interface EventSink {
  write(e: AuditEvent): void;
}

/** The counters and histograms the request path feeds (the listener's own response counter is server.ts's). */
export type MetricsSink = Pick<GatewayMetrics, 'event' | 'upstreamSeconds' | 'budgetBlocked' | 'runtimeBuilt'>;

/** The settings the request path reads. */
export type GatewaySettings = Pick<Config, 'mcpUpstreamTimeoutMs' | 'llmUpstreamTimeoutMs'>;

/**
 * Where the log phase of an LLM request puts what it accounted (llm/accounting.ts); the batched writer
 * (llm/accounting-writer.ts) is the one implementation, so the log phase never imports it.
 */
export interface AccountingSink {
  addUsage(u: UsageIncrement): void;
  addLog(l: ConversationLog): void;
  /** A checkpointed stream's end: written with the deletion of its record (llm/stream-checkpoints.ts). */
  addStreamEnd(e: StreamEnd): void;
}

/** Everything a request on either proxy kind may use, from the moment it is routed to its outcome event. */
export interface GatewayDeps {
  readonly state: StateCapability;
  readonly clock: Clock;
  readonly log: Log;
  readonly audit: EventSink;
  /** Unset in unit tests and in a process without the gateway listener. */
  readonly metrics?: MetricsSink | undefined;
  readonly config: GatewaySettings;
}

/**
 * What the LLM data plane needs beyond that, once per gateway: the whole state store and logger for the budget
 * windows (budgets/ledger.ts takes both as they are), and the database and secret box its batched writer and the
 * stream recovery write with.
 */
export interface LlmPlaneDeps extends GatewayDeps {
  readonly state: State;
  readonly log: Logger;
  readonly db: Db;
  readonly secrets: SecretBox;
  readonly config: GatewaySettings & Pick<Config, 'streamCheckpointMs' | 'streamOrphanMs'>;
}
