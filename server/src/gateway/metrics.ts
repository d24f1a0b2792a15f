// Prometheus metrics of one gateway, served at GET /metrics on its internal admin listener. A registry of its own
// (never prom-client's global one), so two gateways in one process (tests) never mix their counts. On the request
// path the labelled children are looked up once per label set and cached: an increment is then a field update.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { chartBucket } from './event-types.ts';

export type ProxyKindLabel = 'mcp' | 'llm' | 'none';

export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly responses = new Counter({
    name: 'tollgate_gateway_responses_total', help: 'Responses of the proxy listener by proxy kind (none: no proxy matched) and HTTP status.',
    labelNames: ['kind', 'status'] as const, registers: [this.registry],
  });
  private readonly events = new Counter({
    name: 'tollgate_gateway_events_total',
    help: 'Gateway events by proxy kind, type and bucket: one allow, deny or error outcome per request, and info events of rules (dlp_match, prompt_guard_hit, rate_limit_dryrun).',
    labelNames: ['kind', 'type', 'bucket'] as const, registers: [this.registry],
  });
  private readonly upstream = new Histogram({
    name: 'tollgate_gateway_upstream_response_seconds', help: 'Time from sending a request upstream to its response headers, by proxy kind.',
    labelNames: ['kind'] as const, buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers: [this.registry],
  });
  private readonly budgetBlocks = new Counter({
    name: 'tollgate_gateway_budget_blocks_total', help: 'LLM requests refused by a hard budget, by scope (proxy or key).',
    labelNames: ['scope'] as const, registers: [this.registry],
  });
  private readonly reloads = new Counter({
    name: 'tollgate_gateway_config_reloads_total',
    help: 'Snapshots the gateway loaded, by how: full (every tenant: at start, or after many changes) or incremental (the changed users only).',
    labelNames: ['read'] as const, registers: [this.registry],
  });
  private readonly runtimeBuilds = new Counter({
    name: 'tollgate_gateway_runtime_builds_total',
    help: 'Proxy runtimes built (rules compiled), by proxy kind: one per proxy whose configuration changed, on its next request.',
    labelNames: ['kind'] as const, registers: [this.registry],
  });
  private readonly children = new Map<string, { inc(): void }>();
  /** What GET /metrics answers: this registry, or in a gateway worker every worker's (server/src/workers/metrics.ts). */
  private source: () => Promise<string> = () => this.registry.metrics();

  constructor(configVersion: () => number) {
    new Gauge({
      name: 'tollgate_gateway_config_version', help: 'Configuration version the gateway serves (with workers: the lowest any serves).', registers: [this.registry],
      aggregator: 'min',
      collect() { this.set(configVersion()); },
    });
    collectDefaultMetrics({ register: this.registry, prefix: 'tollgate_gateway_' });
  }

  /** The Prometheus text of GET /metrics. */
  exposition(): Promise<string> {
    return this.source();
  }

  answerWith(source: () => Promise<string>): void {
    this.source = source;
  }

  private child(key: string, make: () => { inc(): void }): { inc(): void } {
    let c = this.children.get(key);
    if (!c) this.children.set(key, (c = make()));
    return c;
  }

  response(kind: ProxyKindLabel, status: number): void {
    this.child(`r|${kind}|${status}`, () => this.responses.labels(kind, String(status))).inc();
  }

  event(kind: 'mcp' | 'llm', type: string, reason: unknown): void {
    // A deny's reason says which decision refused it (budget_exceeded, no_permission_for_proxy...); the type alone
    // would lump them together.
    const label = type === 'deny' || type === 'error' ? (typeof reason === 'string' ? `${type}:${reason}` : type) : type;
    this.child(`e|${kind}|${label}`, () => this.events.labels(kind, label, chartBucket(type))).inc();
  }

  configReloaded(read: 'full' | 'incremental'): void {
    this.reloads.labels(read).inc();
  }

  runtimeBuilt(kind: 'mcp' | 'llm'): void {
    this.runtimeBuilds.labels(kind).inc();
  }

  budgetBlocked(scope: 'proxy' | 'key'): void {
    this.child(`b|${scope}`, () => this.budgetBlocks.labels(scope)).inc();
  }

  /** Per kind, looked up once: `labels()` builds a new child object (and closures) on every call. */
  private readonly upstreamOf = { mcp: this.upstream.labels('mcp'), llm: this.upstream.labels('llm') };

  upstreamSeconds(kind: 'mcp' | 'llm', seconds: number): void {
    this.upstreamOf[kind].observe(seconds);
  }
}
