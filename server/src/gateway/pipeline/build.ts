// Builds a proxy's pipeline once per config of that proxy: the authenticator and the compiled rule handlers, sorted
// into the phase lists the request path walks. Nothing here runs per request.
import type { ProxyConfig, Snapshot } from '../../snapshot/snapshot.ts';
import type { GatewayDeps } from '../capabilities.ts';
import type { ProxyKind, Rule, RuleType, RuleTypeOf } from '@tollgate/contract';
import { createAuthenticator, type Authenticator } from '../inbound-auth/index.ts';
import { toolScope } from './scope.ts';
import type { RuleHandler } from './types.ts';

export interface BuildContext {
  s: GatewayDeps;
  proxy: ProxyConfig;
  /**
   * The gateway's current snapshot. A runtime serves every snapshot that keeps its proxy object (RuntimeCache), so
   * what it needs beyond the proxy (the keys, the version) is read from here when a request needs it, never kept.
   */
  current: () => Snapshot;
}

export interface RuleEntry<R extends Rule = Rule> {
  rule: R;
  /** Position in the proxy's rule array. */
  index: number;
}

/** How to compile the enabled rules of type T (all of them at once, in array order). */
export type RuleBuilder<T extends RuleType, H extends RuleHandler = RuleHandler> =
  (entries: RuleEntry<Extract<Rule, { rule_type: T }>>[], ctx: BuildContext) => H[];

/** Builders for some rule types; a type buildPipeline finds no builder for denies what it covers. */
export type RuleBuilders<H extends RuleHandler = RuleHandler> = { [T in RuleType]?: RuleBuilder<T, H> };

/** A builder for every rule type proxies of kind K accept (rule-servers.ts): one left out does not compile. */
export type RuleServers<K extends ProxyKind, H extends RuleHandler = RuleHandler> = { [T in RuleTypeOf<K>]: RuleBuilder<T, H> };

export interface Pipeline<H extends RuleHandler = RuleHandler> {
  /** What the pipeline was built with: every exchange of the proxy starts from it (newExchange). */
  readonly s: GatewayDeps;
  readonly proxy: ProxyConfig;
  readonly auth: Authenticator;
  /** Every handler in rule-array order. */
  readonly handlers: readonly H[];
  readonly banChecks: readonly H[];
  readonly network: readonly H[];
  readonly access: readonly H[];
  readonly prefetch: readonly H[];
}

export function buildPipeline<H extends RuleHandler>(ctx: BuildContext, builders: RuleBuilders<H>): Pipeline<H> {
  const byType = new Map<RuleType, RuleEntry[]>();
  ctx.proxy.rules.forEach((rule, index) => {
    if (!rule.enabled) return;
    const list = byType.get(rule.rule_type);
    if (list) list.push({ rule, index });
    else byType.set(rule.rule_type, [{ rule, index }]);
  });
  const handlers: H[] = [];
  for (const [type, entries] of byType) {
    const build = Object.hasOwn(builders, type) ? builders[type] as ((e: RuleEntry[], c: BuildContext) => H[]) | undefined : undefined;
    if (!build) {
      // Only a rule type of another proxy kind (corrupt storage) or a server left out of a hand-made table gets
      // here. Skipping it would let through what the rule was written to stop.
      ctx.s.log.error('gateway rule type has no server on this proxy kind; failing closed', { proxy: ctx.proxy.id, ruleType: type });
      handlers.push(...entries.map((e) => failedRule(e, 'rule_not_served') as H));
      continue;
    }
    try {
      handlers.push(...build(entries, ctx));
    } catch (err) {
      // Rules are validated on PUT, so this is a bug or corrupt storage: fail closed for what the rule covers.
      ctx.s.log.error('gateway rule could not be built; failing closed', { err, proxy: ctx.proxy.id, ruleType: type });
      handlers.push(...entries.map((e) => failedRule(e, 'rule_build_failed') as H));
    }
  }
  handlers.sort((a, b) => a.index - b.index);
  return {
    s: ctx.s,
    proxy: ctx.proxy,
    auth: createAuthenticator(ctx.proxy, () => ctx.current().credentialsByHash, () => ctx.s.clock.nowMs()),
    handlers,
    banChecks: handlers.filter((h) => h.checkBan),
    network: handlers.filter((h) => h.network),
    access: handlers.filter((h) => h.access),
    prefetch: handlers.filter((h) => h.prefetch),
  };
}

/** Stands in for a rule the gateway cannot run: denies every request the rule covers, with an error event. */
function failedRule(e: RuleEntry, reason: 'rule_build_failed' | 'rule_not_served'): RuleHandler {
  return {
    ruleType: e.rule.rule_type, index: e.index, ruleName: `${e.rule.rule_type}#${e.index}`, scope: toolScope(e.rule.tools),
    access: () => ({ kind: 'deny', status: 500, message: 'Gateway rule error', event: { type: 'error', ruleName: `${e.rule.rule_type}#${e.index}`, details: { reason } } }),
  };
}

/** The rule name recorded in events: a rule's own `name` where the type has one, else `<rule_type>#<index>`. */
export function ruleNameOf(rule: Rule, index: number): string {
  return 'name' in rule && typeof rule.name === 'string' ? rule.name : `${rule.rule_type}#${index}`;
}

/**
 * Keeps one built runtime per proxy config object, rebuilt lazily on the next request once a snapshot holds a new
 * object for the proxy. A reload builds new objects only for the users whose rows changed (snapshot/load.ts), so a
 * change rebuilds the runtimes of its user's proxies and no others (a build compiles the rules: 0.1–0.4 ms).
 * `dispose` runs for replaced ones.
 */
export class RuntimeCache<T> {
  private readonly byProxy = new Map<string, { proxy: ProxyConfig; rt: T }>();

  constructor(private readonly build: (proxy: ProxyConfig) => T, private readonly dispose?: (rt: T, next: T | undefined) => void) {}

  get(proxy: ProxyConfig): T {
    const cur = this.byProxy.get(proxy.id);
    if (cur && cur.proxy === proxy) return cur.rt;
    const rt = this.build(proxy);
    this.byProxy.set(proxy.id, { proxy, rt });
    if (cur) this.dispose?.(cur.rt, rt);
    return rt;
  }

  /**
   * Called with each new snapshot: drops the runtimes whose proxy it replaced or removed (the others serve on), so an
   * idle proxy never pins an old config in memory. `dispose` runs for proxies that are gone.
   */
  prune(snapshot: Snapshot): void {
    for (const [id, cur] of this.byProxy) {
      const now = snapshot.proxies.get(id);
      if (now === cur.proxy) continue;
      this.byProxy.delete(id);
      if (!now) this.dispose?.(cur.rt, undefined);
    }
  }

  values(): T[] {
    return [...this.byProxy.values()].map((v) => v.rt);
  }
}
