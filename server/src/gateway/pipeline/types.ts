// The vocabulary of the gateway request pipeline, shared by the MCP and LLM data planes.
import type { IncomingMessage } from 'node:http';
import type { ProxyConfig } from '../../snapshot/snapshot.ts';
import type { GatewayDeps } from '../capabilities.ts';
import type { GatewayEvent } from '../events.ts';
import type { Identity } from '../inbound-auth/types.ts';
import type { RequestBudget } from '../lua/budget.ts';

/** What the kind-specific handler learned about the request before the pipeline runs. */
export interface RequestFacts {
  /** Protocol operation: the MCP JSON-RPC method (`tools/call`, `batch` for several) or an LLM endpoint name. */
  method: string;
  /** Tool names the request touches (MCP tools/call). Empty when none; LLM requests leave it empty. */
  tools: readonly string[];
  /** LLM model, when known. */
  model?: string;
  /** The raw request body (lambdas read it through svc.request.get_body). */
  body?: string;
  /**
   * Set when the request is cacheable by static_cache: the tool the cached answer belongs to (the cache drain
   * drops one tool) and the canonical payload the key is derived from. MCP: a single tools/call.
   */
  cache?: { tool: string; payload: string };
}

/** One request travelling through the pipeline. Created by the kind handler, completed by the phases. */
export interface Exchange {
  readonly s: GatewayDeps;
  readonly proxy: ProxyConfig;
  readonly req: IncomingMessage;
  readonly clientIp: string;
  readonly userAgent: string;
  /** The inbound credential as sent (never logged, never forwarded). */
  readonly token: string | undefined;
  /** SHA-256 hex of `token`. */
  readonly tokenHash: string | undefined;
  facts: RequestFacts;
  /** Set by the authenticate phase. */
  identity?: Identity;
  /** Set by static_cache on a miss: where the kind handler stores the answer (storeCached) once it has it. */
  cacheSlot?: { key: string; ttlMs: number; maxBytes: number };
  /** Set by static_cache's prefetch: the lookup `rule` already sent for `key` (it resolves, never rejects). */
  cacheRead?: { rule: unknown; key: string; hit: Promise<Buffer | undefined> };
  /** Set by the pre-auth ban check: who the token claims to be, unverified (bans can only deny). */
  principalHint?: { consumerKey?: string; apiKeyKey?: string };
  /**
   * The request's one outcome event is already recorded: an MCP stream's `allow` goes out when the stream starts,
   * or a response-phase rule failed and recorded its error as the outcome. What fails later is a detail event.
   */
  outcomeRecorded?: boolean;
  /**
   * What the lambdas of this request have used together (access lambdas and every response lambda of its answer):
   * created by the first lambda that runs, so a request without lambdas carries none.
   */
  lambdaBudget?: RequestBudget;
}

/** An event to record, without the fields the emitter fills (user, proxy, ip, time). */
export type EventSpec = Pick<GatewayEvent, 'type' | 'ruleName' | 'details' | 'tool'>;

export type Verdict =
  | { kind: 'continue' }
  /** Stop with an error. The kind handler renders `{ error: message }` (or a JSON-RPC error where it says so). */
  | {
    kind: 'deny'; status: number; message: string; headers?: Record<string, string>; event: EventSpec;
    /** Where the protocol has its own error channel (MCP: JSON-RPC), render the denial there with this code. */
    rpcCode?: number;
  }
  /**
   * Stop and answer now without the upstream (lambda `svc.response.exit`, cache hit). `cached` marks a static_cache
   * hit whose body is the stored payload; the kind handler frames it (MCP wraps it in a JSON-RPC response).
   */
  | { kind: 'respond'; status: number; body: string; headers?: Record<string, string>; event: EventSpec; cached?: boolean };

export const CONTINUE: Verdict = Object.freeze({ kind: 'continue' }) as Verdict;

export type MaybePromise<T> = T | Promise<T>;

/** Which requests a rule applies to, from its `tools` field. */
export interface ToolScope {
  /** `tools` is `['*']`: every request, including ones that name no tool. */
  readonly all: boolean;
  /** True when the rule applies to a request touching these tools. */
  matches(tools: readonly string[]): boolean;
  /** True when the rule applies to this one tool (response rules, description injection). */
  has(tool: string | undefined): boolean;
}

/**
 * A compiled rule. Built once per config version from one rule (or, for ip_acl, from all rules of the type, since the
 * first match wins across them). Each hook belongs to one pipeline phase; a handler implements the ones it needs.
 */
export interface RuleHandler {
  readonly ruleType: string;
  /** Index in the proxy's rule array (order of evaluation). */
  readonly index: number;
  /** Name recorded as `rule_name` in events: the rule's `name` where it has one, else `<rule_type>#<index>`. */
  readonly ruleName: string;
  readonly scope: ToolScope;
  /** Phase `ban`: runs before authentication (rate_limit bans). */
  checkBan?(x: Exchange): MaybePromise<Verdict>;
  /**
   * The `network` hook reads the request's tools (an ip_acl rule scoped to tools): it cannot run before the body is
   * read, so it runs after authentication. Unset: it decides from the connection alone, before authentication.
   */
  readonly needsTools?: boolean;
  /** Phase `network`: runs before authentication, after bans (ip_acl). */
  network?(x: Exchange): MaybePromise<Verdict>;
  /** Phase `access`: after authentication and authorization, in array order (rate_limit, lambda, static_cache...). */
  access?(x: Exchange): MaybePromise<Verdict>;
  /**
   * Runs when the access phase starts, before its first hook: sends the state-store read this handler's `access`
   * hook will await, so that it travels together with the earlier hooks' commands (a rate limit's counter) instead of
   * after them, one round trip fewer on the request's path on Redis. It decides nothing: a request an earlier hook
   * refuses leaves its read unused.
   */
  prefetch?(x: Exchange): void;
}
