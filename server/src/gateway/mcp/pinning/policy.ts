// What each tool-pinning mode does with what the gateway knows: the pinned catalog and the pending differences of
// the snapshot, and what this gateway saw itself since (monitor.ts). Pure: the handler, the message policy and the
// tools/list shaping ask it. docs/mcp-servers.md, "Tool pinning", is the behaviour users rely on.
import type { ToolDefinition, ToolPinningMode } from '@tollgate/contract';
import type { McpProxyConfig, McpTool, PendingToolChange } from '../../../snapshot/snapshot.ts';
import { fingerprint, toolDefinition } from './definition.ts';

/** A tool whose upstream definition is not the pinned one. */
export interface Observation {
  tool: string;
  change: 'changed' | 'added';
  fingerprint: string;
  definition: ToolDefinition;
  /** The pinned fingerprint it was compared with; null for a tool that is not in the catalog. */
  pinnedFingerprint: string | null;
}

/** Why a tool is withheld: its definition changed, or it is not in the pinned catalog at all. */
export type Withheld = 'changed' | 'added';

export interface PinningView {
  readonly mode: Exclude<ToolPinningMode, 'off'>;
  readonly pinned: ReadonlyMap<string, McpTool>;
  readonly pending: ReadonlyMap<string, PendingToolChange>;
}

/** The proxy's pinning, once per config version; undefined when it is off (then nothing is compared at all). */
export function pinningView(proxy: McpProxyConfig): PinningView | undefined {
  const mode = proxy.toolPinning ?? 'off';
  if (mode === 'off') return undefined;
  return {
    mode,
    pinned: new Map(proxy.tools.map((t) => [t.name, t])),
    pending: new Map((proxy.pendingToolChanges ?? []).map((c) => [c.tool, c])),
  };
}

/** The tools of an upstream tools/list answer (one page, or the whole catalog) that differ from the pinned ones. */
export function compareTools(view: PinningView, tools: readonly unknown[], skip: ReadonlySet<string> = new Set()): Observation[] {
  const out: Observation[] = [];
  for (const raw of tools) {
    const def = toolDefinition(raw);
    if (!def || skip.has(def.name)) continue;
    const fp = fingerprint(def);
    const pinned = view.pinned.get(def.name);
    if (pinned?.fingerprint === fp) continue;
    out.push({ tool: def.name, change: pinned ? 'changed' : 'added', fingerprint: fp, definition: def, pinnedFingerprint: pinned?.fingerprint ?? null });
  }
  return out;
}

/**
 * Whether a call of this tool is withheld in hide and block modes: it is not in the pinned catalog, a difference is
 * pending for it (any gateway saw it), or this gateway saw one that has not reached its snapshot yet.
 */
export function judgeTool(view: PinningView, tool: string, seen: ReadonlyMap<string, Observation>): Withheld | undefined {
  if (!view.pinned.has(tool)) return 'added';
  if (view.pending.has(tool) || seen.has(tool)) return 'changed';
  return undefined;
}

/** The tools whose differences block a proxy in block mode: pending ones and those this gateway saw. */
export function blockingTools(view: PinningView, seen: ReadonlyMap<string, Observation>): string[] {
  if (view.mode !== 'block') return [];
  return [...new Set([...view.pending.keys(), ...seen.keys()])].sort();
}

/** The texts clients get (docs/mcp-servers.md, "Tool pinning"). */
export const PinMsg = {
  withheld: (tool: string, why: Withheld) => why === 'changed'
    ? `Tool "${tool}" is withheld: its definition changed upstream since it was approved (tool pinning); the MCP server's owner must approve the change`
    : `Tool "${tool}" is withheld: it is not in the approved tool catalog (tool pinning); the MCP server's owner must approve it`,
  blocked: (tools: readonly string[]) => {
    const shown = tools.slice(0, 5).map((t) => JSON.stringify(t)).join(', ') + (tools.length > 5 ? ` and ${tools.length - 5} more` : '');
    return `MCP server blocked: upstream tool definitions differ from the approved catalog (tool pinning: ${shown}); the MCP server's owner must approve the changes`;
  },
} as const;
