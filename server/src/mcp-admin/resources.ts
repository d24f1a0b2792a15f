// Synthetic static resources of an MCP server (served by the gateway without contacting the upstream). Each write
// locks the owning server row, so uri uniqueness is checked without races, and bumps the config version.
import { randomUUID } from 'node:crypto';
import { bumpConfigVersion } from '../snapshot/changes.ts';
import type { Queryable } from '../db/db.ts';
import { HttpError, Msg } from '../http/errors.ts';
import { parseOr400 } from '../http/validate.ts';
import { isUuid, requireMcp } from '../proxies/ownership.ts';
import { assertResourceQuota } from '../quota/quota.ts';
import { unixNow, type Services } from '../services.ts';
import {
  RESOURCE_SUMMARY_COLUMNS, resourceRecord, resourceSummary,
  type McpRow, type ResourceRecord, type ResourceRow, type ResourceSummary,
} from './records.ts';
import { resourceCreateSchema, resourcePatchSchema } from '@tollgate/contract';
import { lockOwnedMcp } from './servers.ts';

/** Which resource: the caller, the MCP server and the resource id from the path. */
export interface ResourceRef {
  userId: string;
  mcpId: string;
  rid: string;
}

export interface GlobalResourceSummary extends ResourceSummary {
  mcpId: string;
  mcpName: string;
}

async function requireResource(q: Queryable, mcpId: string, rid: string, lock = false): Promise<ResourceRow> {
  if (!isUuid(rid)) throw new HttpError(404, Msg.resourceNotFound);
  const rows = await q.query<ResourceRow>(`SELECT * FROM mcp_resources WHERE id = $1 AND mcp_id = $2${lock ? ' FOR UPDATE' : ''}`, [rid, mcpId]);
  if (!rows[0]) throw new HttpError(404, Msg.resourceNotFound);
  return rows[0];
}

async function assertUriFree(q: Queryable, mcpId: string, uri: string, exceptId?: string): Promise<void> {
  const rows = await q.query('SELECT 1 FROM mcp_resources WHERE mcp_id = $1 AND uri = $2 AND id <> $3', [mcpId, uri, exceptId ?? '00000000-0000-0000-0000-000000000000']);
  if (rows.length) throw new HttpError(400, Msg.uriInUse);
}

export async function listResources(s: Services, userId: string, mcpId: string): Promise<ResourceSummary[]> {
  await requireMcp(s.db, userId, mcpId);
  const rows = await s.db.query<Omit<ResourceRow, 'content'>>(
    `SELECT ${RESOURCE_SUMMARY_COLUMNS} FROM mcp_resources WHERE mcp_id = $1 ORDER BY created_at, uri`, [mcpId]);
  return rows.map(resourceSummary);
}

export async function listAllResources(s: Services, userId: string): Promise<GlobalResourceSummary[]> {
  const rows = await s.db.query<Omit<ResourceRow, 'content'> & { mcp_name: string }>(
    `SELECT r.id, r.mcp_id, r.uri, r.name, r.description, r.mime_type, r.created_at, m.name AS mcp_name
       FROM mcp_resources r JOIN mcp_servers m ON m.id = r.mcp_id
      WHERE m.user_id = $1 ORDER BY m.created_at, m.id, r.created_at, r.uri`, [userId]);
  return rows.map((r) => ({ ...resourceSummary(r), mcpId: r.mcp_id, mcpName: r.mcp_name }));
}

export async function getResource(s: Services, { userId, mcpId, rid }: ResourceRef): Promise<ResourceRecord> {
  await requireMcp(s.db, userId, mcpId);
  return resourceRecord(await requireResource(s.db, mcpId, rid));
}

export async function createResource(s: Services, userId: string, mcpId: string, body: unknown): Promise<ResourceRecord> {
  await requireMcp<McpRow>(s.db, userId, mcpId);
  const input = parseOr400(resourceCreateSchema, body);
  const { record, version } = await s.db.tx(async (q) => {
    await lockOwnedMcp(q, userId, mcpId);
    await assertUriFree(q, mcpId, input.uri);
    await assertResourceQuota(q, userId);
    const [row] = await q.query<ResourceRow>(
      `INSERT INTO mcp_resources (id, mcp_id, uri, name, description, mime_type, content, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
      [randomUUID(), mcpId, input.uri, input.name, input.description ?? null, input.mimeType, input.content, unixNow(s.clock)],
    );
    return { record: resourceRecord(row!), version: await bumpConfigVersion(q) };
  });
  await s.configChanged(version);
  return record;
}

export async function updateResource(s: Services, { userId, mcpId, rid }: ResourceRef, body: unknown): Promise<ResourceRecord> {
  await requireMcp(s.db, userId, mcpId);
  await requireResource(s.db, mcpId, rid);
  const input = parseOr400(resourcePatchSchema, body);
  const { record, version } = await s.db.tx(async (q) => {
    await lockOwnedMcp(q, userId, mcpId);
    const cur = await requireResource(q, mcpId, rid, true);
    if (input.uri !== undefined && input.uri !== cur.uri) await assertUriFree(q, mcpId, input.uri, rid);
    const [row] = await q.query<ResourceRow>(
      `UPDATE mcp_resources SET uri = $2, name = $3, description = $4, mime_type = $5, content = $6 WHERE id = $1 RETURNING *`,
      [rid, input.uri ?? cur.uri, input.name ?? cur.name, input.description === undefined ? cur.description : input.description,
        input.mimeType ?? cur.mime_type, input.content ?? cur.content],
    );
    return { record: resourceRecord(row!), version: await bumpConfigVersion(q) };
  });
  await s.configChanged(version);
  return record;
}

export async function deleteResource(s: Services, { userId, mcpId, rid }: ResourceRef): Promise<void> {
  await requireMcp(s.db, userId, mcpId);
  const version = await s.db.tx(async (q) => {
    await lockOwnedMcp(q, userId, mcpId);
    await requireResource(q, mcpId, rid, true);
    await q.query('DELETE FROM mcp_resources WHERE id = $1', [rid]);
    return bumpConfigVersion(q);
  });
  await s.configChanged(version);
}
