// Tool pinning as the request path sees one proxy at one config version: the pinned view joined with what this
// gateway saw (monitor.ts), and the verdict of block mode. Built with the runtime; undefined when pinning is off.
import type { McpProxyConfig } from '../../../snapshot/snapshot.ts';
import type { Verdict } from '../../pipeline/types.ts';
import { RpcCode } from '../jsonrpc.ts';
import type { PinningMonitor } from './monitor.ts';
import { blockingTools, judgeTool, PinMsg, pinningView, type Observation, type PinningView, type Withheld } from './policy.ts';

/** HTTP status of a blocked proxy's answer to requests without a JSON-RPC id (GET streams, notifications). */
export const BLOCKED_STATUS = 503;

export interface ProxyPinning {
  readonly view: PinningView;
  /** Why a call of this tool is withheld (hide and block); undefined when it may go upstream. */
  withheld(tool: string): Withheld | undefined;
  /** Block mode with differences: the denial every MCP request gets. */
  blocked(): Extract<Verdict, { kind: 'deny' }> | undefined;
  /** The differences of an upstream tools/list answer (recorded when new). */
  observe(tools: readonly unknown[], skip: ReadonlySet<string>): Observation[];
  /** Tools this gateway saw changed that its snapshot may not hold yet, merged with the snapshot's pending ones. */
  differing(): ReadonlySet<string>;
  /** Traffic: check the upstream when the last check is old. */
  touch(): void;
  /** notifications/tools/list_changed passed through. */
  listChanged(): void;
}

export function proxyPinning(proxy: McpProxyConfig, version: () => number, monitor: PinningMonitor | undefined): ProxyPinning | undefined {
  const view = pinningView(proxy);
  if (!view || !monitor) return undefined;
  const p = { proxy, view };
  const seen = () => monitor.seenFor(proxy.id, version());
  return {
    view,
    withheld: (tool) => (view.mode === 'warn' ? undefined : judgeTool(view, tool, seen())),
    blocked() {
      const tools = blockingTools(view, seen());
      if (!tools.length) return undefined;
      return {
        kind: 'deny', status: BLOCKED_STATUS, message: PinMsg.blocked(tools), rpcCode: RpcCode.toolPinningBlocked,
        event: { type: 'deny', details: { reason: 'tool_pinning_blocked', tools: tools.slice(0, 20) } },
      };
    },
    observe: (tools, skip) => monitor.observe(p, tools, skip),
    differing: () => new Set([...view.pending.keys(), ...seen().keys()]),
    touch: () => monitor.touch(proxy.id),
    listChanged: () => monitor.listChanged(proxy.id),
  };
}
