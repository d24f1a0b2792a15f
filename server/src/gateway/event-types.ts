// The gateway's catalog of event types and their chart buckets. It imports nothing, so the metrics (which Services
// holds), the audit chart and the event writer (events.ts, which needs the gateway's capabilities) all read it without
// a cycle.

/**
 * Every event type the gateway emits, with the chart bucket it counts in (`/api/logs/chart` buckets allow, deny and
 * error; `info` events are not counted). One request produces exactly one outcome event (allow, deny or error
 * bucket) and any number of info events.
 */
export const GATEWAY_EVENT_TYPES = {
  /** The request was forwarded (or answered from cache / synthetic resources) and allowed. */
  allow: 'allow',
  /** Authentication failed, the credential may not use the tool/resource/model, or a lambda exited with >= 400. */
  deny: 'deny',
  /**
   * The gateway failed: upstream unreachable, response too large, internal error; or (details.reason gateway_lost)
   * the gateway relaying an LLM stream died and another one charged what it had delivered.
   */
  error: 'error',
  /** An ip_acl rule blocked the client address. */
  ip_blocked: 'deny',
  /** A rate_limit rule banned a key (details.imposed true), or a request hit an existing ban. */
  ip_banned: 'deny',
  /** A rate_limit rule fired and the request got 429. */
  rate_limited: 'deny',
  /** A rate_limit rule in dryrun mode would have fired; the request continued. */
  rate_limit_dryrun: 'info',
  /** A response_replace rule redacted part of a response. */
  dlp_match: 'info',
  /** A lambda failed (compile error, runtime error, budget exceeded); the request failed closed. */
  lambda_error: 'error',
  /** A prompt_guard rule fired (LLM data plane). */
  prompt_guard_hit: 'info',
  /**
   * A streamed MCP answer failed after its outcome (allow) was recorded at the stream's start: an event over the
   * response cap was withheld, the upstream broke off, the gateway stopped or a response lambda failed
   * (details.reason). A detail, so a request keeps one outcome.
   */
  stream_error: 'info',
  /**
   * Tool pinning: a gateway saw an upstream tool definition that differs from the approved one (details: mode,
   * change, fingerprints, diff). Once per new definition across replicas; calls it withholds are `deny` outcomes.
   */
  tool_changed: 'info',
} as const;

export type GatewayEventType = keyof typeof GATEWAY_EVENT_TYPES | (string & {});
export type ChartBucket = 'allow' | 'deny' | 'error' | 'info';

/** Chart bucket of an event type (unknown types count as info). */
export function chartBucket(type: string): ChartBucket {
  return (GATEWAY_EVENT_TYPES as Record<string, ChartBucket>)[type] ?? 'info';
}
