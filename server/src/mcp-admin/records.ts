// Stored rows of MCP servers and synthetic resources, and the API records made from them. The mapping is the one
// place that decides what leaves the service: auth_token_enc never does, `pin` only on the single-record GET and
// resource `content` only on the single-resource forms.
import type { mcpServerRecordSchema, resourceRecordSchema, resourceSummarySchema } from '@tollgate/contract';
import type { z } from 'zod';
import type { ToolPinningMode } from '@tollgate/contract';
import type { InboundAuth, McpTool } from '../snapshot/snapshot.ts';
import type { Queryable } from '../db/db.ts';
import type { Pin } from '../net/upstream-guard.ts';
import { proxyHost } from '../proxies/gateway-objects.ts';

export type AuthType = 'none' | 'bearer';

export type McpRow = {
  id: string;
  user_id: string;
  name: string;
  url: string;
  auth_type: AuthType;
  auth_token_enc: string | null;
  auth: InboundAuth | null;
  tools: McpTool[];
  pin: Pin | null;
  created_at: number;
  tool_pinning: ToolPinningMode;
};

export type ResourceRow = {
  id: string;
  mcp_id: string;
  uri: string;
  name: string;
  description: string | null;
  mime_type: string;
  content: string;
  created_at: number;
};

// The records are the contract's response types, so a field the server returns and the schema lacks is a type error.
export type ResourceSummary = z.output<typeof resourceSummarySchema>;
export type ResourceRecord = z.output<typeof resourceRecordSchema>;
export type McpServerRecord = z.output<typeof mcpServerRecordSchema>;

/** Columns of a resource without its content (listings never read the payloads). */
export const RESOURCE_SUMMARY_COLUMNS = 'id, mcp_id, uri, name, description, mime_type, created_at';

export function resourceSummary(r: Omit<ResourceRow, 'content'>): ResourceSummary {
  const out: ResourceSummary = { id: r.id, uri: r.uri, name: r.name, mimeType: r.mime_type, createdAt: Number(r.created_at) };
  if (r.description !== null) out.description = r.description;
  return out;
}

export function resourceRecord(r: ResourceRow): ResourceRecord {
  return { ...resourceSummary(r), content: r.content };
}

export function mcpRecord(row: McpRow, resources: ResourceSummary[], proxyDomain: string, withPin = false): McpServerRecord {
  const out: McpServerRecord = {
    id: row.id,
    name: row.name,
    url: row.url,
    authType: row.auth_type,
    auth: row.auth ?? null,
    toolPinning: row.tool_pinning ?? 'off',
    tools: row.tools ?? [],
    resources,
    createdAt: Number(row.created_at),
    proxyHost: proxyHost(row.id, proxyDomain),
  };
  if (withPin) out.pin = row.pin ?? null;
  return out;
}

/** Resource summaries of some MCP servers, grouped by server id, in creation order. */
export async function resourceSummariesByMcp(q: Queryable, mcpIds: string[]): Promise<Map<string, ResourceSummary[]>> {
  const out = new Map<string, ResourceSummary[]>();
  if (!mcpIds.length) return out;
  const rows = await q.query<Omit<ResourceRow, 'content'>>(
    `SELECT ${RESOURCE_SUMMARY_COLUMNS} FROM mcp_resources WHERE mcp_id = ANY($1::uuid[]) ORDER BY created_at, uri`, [mcpIds]);
  for (const r of rows) {
    const list = out.get(r.mcp_id);
    if (list) list.push(resourceSummary(r));
    else out.set(r.mcp_id, [resourceSummary(r)]);
  }
  return out;
}

/** The API record of one server, read with the caller's queryable (inside or outside a transaction). */
export async function loadMcpRecord(q: Queryable, row: McpRow, proxyDomain: string, withPin = false): Promise<McpServerRecord> {
  const resources = (await resourceSummariesByMcp(q, [row.id])).get(row.id) ?? [];
  return mcpRecord(row, resources, proxyDomain, withPin);
}
