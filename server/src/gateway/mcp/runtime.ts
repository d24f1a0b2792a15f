// Everything the MCP handler needs for one proxy at one config version, built once: the generic pipeline with the
// MCP rule handlers, the synthetic catalog, the upstream target and agent, and per-credential permissions.
import type { McpProxyConfig } from '../../snapshot/snapshot.ts';
import { buildPipeline, type BuildContext, type Pipeline, type RuleBuilders } from '../pipeline/index.ts';
import { RULE_SERVERS } from '../pipeline/rule-servers.ts';
import type { Identity } from '../inbound-auth/types.ts';
import { permissionsFor, type McpPermissions } from './permissions.ts';
import type { McpRuleHandler } from './rule-hooks.ts';
import { buildSynthetic, type SyntheticCatalog } from './synthetic.ts';
import { proxyAgent, upstreamTarget, type UpstreamTarget } from './upstream.ts';
import type { PinnedPool } from '../upstream/pool.ts';
import type { Dispatcher } from 'undici';
import { proxyPinning, type ProxyPinning } from './pinning/gate.ts';
import type { PinningMonitor } from './pinning/monitor.ts';

export interface McpRuntime {
  proxy: McpProxyConfig;
  pipeline: Pipeline<McpRuleHandler>;
  /** Handlers with response-side hooks, in rule-array order. */
  messageRules: readonly McpRuleHandler[];
  toolsListRules: readonly McpRuleHandler[];
  synthetic: SyntheticCatalog;
  target: UpstreamTarget;
  agent: Dispatcher | undefined;
  /** The upstream's own credential header (`authType: bearer`), built once per config version. */
  upstreamAuth: readonly [string, string] | undefined;
  /** The owner's MCP response-body cap in bytes. */
  capBytes: number;
  /** A lambda reads the request body (svc.request.get_body): only then is it handed to the pipeline. */
  needsBody: boolean;
  permissions(identity: Identity): McpPermissions;
  /** Tool pinning of the proxy; undefined when it is off (nothing is compared then). */
  pinning: ProxyPinning | undefined;
}

/** ctx is what the pipeline is built from, handed on as is. */
export function buildMcpRuntime(ctx: BuildContext & { proxy: McpProxyConfig }, agents: PinnedPool, monitor?: PinningMonitor, builders: RuleBuilders<McpRuleHandler> = RULE_SERVERS.mcp): McpRuntime {
  const { proxy } = ctx;
  const pipeline = buildPipeline(ctx, builders);
  // By the key's tags array: a key whose tags change is a new credential object with a new array.
  const perms = new WeakMap<readonly string[], McpPermissions>();
  return {
    proxy, pipeline,
    messageRules: pipeline.handlers.filter((h) => h.onMessage),
    toolsListRules: pipeline.handlers.filter((h) => h.onToolsList),
    synthetic: buildSynthetic(proxy),
    target: upstreamTarget(proxy.upstreamUrl),
    agent: proxyAgent(agents, proxy),
    upstreamAuth: proxy.upstreamToken ? ['authorization', `Bearer ${proxy.upstreamToken}`] : undefined,
    capBytes: proxy.limits.mcpMaxRespBodyKb * 1024,
    needsBody: pipeline.handlers.some((h) => h.ruleType === 'lambda'),
    pinning: proxyPinning(proxy, () => ctx.current().version, monitor),
    permissions(identity) {
      if (identity.mode !== 'svc_api_key') return permissionsFor(identity, proxy.id);
      let p = perms.get(identity.tags);
      if (!p) perms.set(identity.tags, (p = permissionsFor(identity, proxy.id)));
      return p;
    },
  };
}
