// Tool pinning on the management side: the pending differences of an MCP server (GET /api/mcp/:id/tool-changes), their
// approval (POST /api/mcp/:id/tool-changes/approve), and the approval that discovery implies (it pins whatever the
// upstream serves). Every approval is recorded as a `tool_approved` audit event naming who approved what, with the
// diff. docs/mcp-servers.md, "Tool pinning".
import { toolApproveSchema, type ToolChange, type ToolDefinition, type ToolPinningMode } from '@tollgate/contract';
import type { Queryable } from '../db/db.ts';
import { HttpError } from '../http/errors.ts';
import { parseOr400 } from '../http/validate.ts';
import { requireMcp } from '../proxies/ownership.ts';
import { unixNow, type Services } from '../services.ts';
import { bumpConfigVersion } from '../snapshot/changes.ts';
import type { McpTool } from '../snapshot/snapshot.ts';
import { definitionOf, pinnedTool } from '../gateway/mcp/pinning/definition.ts';
import { diffDefinitions } from '../gateway/mcp/pinning/diff.ts';
import { shownName } from './discovery-caps.ts';
import type { McpRow } from './records.ts';
import { lockOwnedMcp } from './servers.ts';

/** Who acts on the management API: recorded with an approval. */
export interface Actor {
  userId: string;
  email: string;
  clientIp: string;
}

type ChangeRow = {
  tool: string;
  fingerprint: string;
  definition: ToolDefinition;
  detected_at: number;
};

const ROWS = 'SELECT tool, fingerprint, definition, detected_at FROM mcp_tool_changes WHERE mcp_id = $1 ORDER BY tool';

/** A pending row as the API shows it, against the pinned catalog. */
function toolChange(pinned: ReadonlyMap<string, McpTool>, r: ChangeRow): ToolChange {
  const before = pinned.get(r.tool);
  const pinnedDef = before ? definitionOf(before) : null;
  const { diff, omitted } = diffDefinitions(pinnedDef, r.definition);
  return {
    tool: r.tool, change: before ? 'changed' : 'added', pinnedFingerprint: before?.fingerprint ?? null, fingerprint: r.fingerprint,
    pinned: pinnedDef, current: r.definition, diff, diffOmitted: omitted, detectedAt: Number(r.detected_at),
  };
}

/** The rows that still differ from the catalog (a gateway may have recorded a definition that was approved since). */
function pendingOf(tools: McpTool[], rows: ChangeRow[]): ToolChange[] {
  const pinned = new Map(tools.map((t) => [t.name, t]));
  return rows.filter((r) => pinned.get(r.tool)?.fingerprint !== r.fingerprint).map((r) => toolChange(pinned, r));
}

export async function readToolChanges(s: Services, userId: string, id: string): Promise<{ toolPinning: ToolPinningMode; pending: ToolChange[] }> {
  const row = await requireMcp<McpRow>(s.db, userId, id);
  const rows = await s.db.query<ChangeRow>(ROWS, [id]);
  return { toolPinning: row.tool_pinning, pending: pendingOf(row.tools ?? [], rows) };
}

export async function approveToolChanges(s: Services, actor: Actor, id: string, body: unknown): Promise<{ approved: ToolChange[]; pending: ToolChange[] }> {
  await requireMcp(s.db, actor.userId, id); // 404 before any validation message
  const input = parseOr400(toolApproveSchema, body);
  const { approved, pending, version } = await s.db.tx(async (q) => {
    const cur = await lockOwnedMcp(q, actor.userId, id);
    const all = pendingOf(cur.tools ?? [], await q.query<ChangeRow>(ROWS, [id]));
    const chosen = input.fingerprints ? reviewedChanges(all, input.fingerprints) : chosenChanges(all, input.tools);
    const tools = withApproved(cur.tools ?? [], chosen);
    await q.query('UPDATE mcp_servers SET tools = $2::jsonb WHERE id = $1', [id, JSON.stringify(tools)]);
    // Approved rows go, and so do rows that match the catalog already (nothing left to approve in them).
    const keep = all.filter((c) => !chosen.includes(c)).map((c) => c.tool);
    await q.query('DELETE FROM mcp_tool_changes WHERE mcp_id = $1 AND NOT (tool = ANY($2::text[]))', [id, keep]);
    return { approved: chosen, pending: all.filter((c) => !chosen.includes(c)), version: chosen.length ? await bumpConfigVersion(q) : 0 };
  });
  if (version) await s.configChanged(version);
  if (approved.length) recordApproval(s, actor, { mcpId: id, changes: approved, via: 'approve' });
  return { approved, pending };
}

function chosenChanges(all: ToolChange[], names: string[] | undefined): ToolChange[] {
  if (!names) return all;
  const byTool = new Map(all.map((c) => [c.tool, c]));
  const missing = names.find((n) => !byTool.has(n));
  if (missing !== undefined) throw new HttpError(400, `tools: ${shownName(missing)} has no pending change`);
  return [...new Set(names)].map((n) => byTool.get(n)!);
}

/**
 * Compare-and-set: the pending definitions whose fingerprints are those the person reviewed. Approval by name alone
 * would pin whatever is pending at that moment, so an upstream that changes a tool again between the review and the
 * click would have its unseen definition approved; here that refuses the whole call.
 */
function reviewedChanges(all: ToolChange[], fingerprints: Record<string, string>): ToolChange[] {
  const byTool = new Map(all.map((c) => [c.tool, c]));
  return Object.entries(fingerprints).map(([tool, fingerprint]) => {
    const c = byTool.get(tool);
    if (!c) throw new HttpError(409, `fingerprints: ${shownName(tool)} has no pending change any more; read the pending changes again`);
    if (c.fingerprint !== fingerprint) {
      throw new HttpError(409, `fingerprints: ${shownName(tool)} changed upstream again since it was read (pending fingerprint ${c.fingerprint}); read the pending changes again and review the new definition`);
    }
    return c;
  });
}

/** The catalog with the approved definitions pinned: changed tools replaced in place, added ones appended. */
function withApproved(tools: McpTool[], approved: ToolChange[]): McpTool[] {
  const next = new Map(approved.map((c) => [c.tool, pinnedTool(c.current)]));
  const out = tools.map((t) => next.get(t.name) ?? t);
  const had = new Set(tools.map((t) => t.name));
  for (const [name, t] of next) if (!had.has(name)) out.push(t);
  return out;
}

/**
 * Discovery pins what the upstream serves: every pending row goes with the old catalog. Returns the differences that
 * were pending against it, for the audit event (call inside the discovery's transaction, before the catalog update).
 */
export async function clearForDiscovery(q: Queryable, row: McpRow): Promise<ToolChange[]> {
  const rows = await q.query<ChangeRow>('DELETE FROM mcp_tool_changes WHERE mcp_id = $1 RETURNING tool, fingerprint, definition, detected_at', [row.id]);
  return pendingOf(row.tools ?? [], rows.sort((a, b) => (a.tool < b.tool ? -1 : 1)));
}

/** The `tool_approved` event: who approved which tools, old and new fingerprints and the diff of each. */
export function recordApproval(s: Services, actor: Actor, what: { mcpId: string; changes: ToolChange[]; via: 'approve' | 'discovery' }): void {
  const { mcpId, changes, via } = what;
  s.audit.write({
    userId: actor.userId, timestamp: unixNow(s.clock), eventType: 'tool_approved', clientIp: actor.clientIp, mcpUuid: mcpId,
    tool: changes.length === 1 ? changes[0]!.tool : undefined,
    details: {
      approved_by: actor.email, via,
      tools: changes.slice(0, 50).map((c) => ({
        tool: c.tool, change: c.change, pinned_fingerprint: c.pinnedFingerprint, fingerprint: c.fingerprint,
        diff: c.diff, ...(c.diffOmitted ? { diff_omitted: c.diffOmitted } : {}),
      })),
      ...(changes.length > 50 ? { tools_omitted: changes.length - 50 } : {}),
    },
  });
}
