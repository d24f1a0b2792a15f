// MCP server records: create, list, read, patch and delete, each with its gateway objects in the same
// transaction and the config version announced after commit (so the proxy is reachable, changed or gone the
// moment the call returns).
import { randomUUID } from 'node:crypto';
import { bumpConfigVersion } from '../snapshot/changes.ts';
import type { Queryable } from '../db/db.ts';
import { HttpError, Msg } from '../http/errors.ts';
import { parseOr400 } from '../http/validate.ts';
import {
  createGatewayObjects, deleteGatewayObjects, setPluginAuth, setUpstream, stripProxyTags,
} from '../proxies/gateway-objects.ts';
import { validateInboundAuth } from '../proxies/inbound-auth.ts';
import { isUuid, requireMcp } from '../proxies/ownership.ts';
import { pinOr400 } from '../proxies/pin.ts';
import { assertMcpQuota } from '../quota/quota.ts';
import { unixNow, type Services } from '../services.ts';
import { loadMcpRecord, mcpRecord, resourceSummariesByMcp, type McpRow, type McpServerRecord } from './records.ts';
import { mcpCreateSchema, mcpPatchSchema } from '@tollgate/contract';
import { createUpstreamAuth, patchUpstreamAuth } from './upstream-auth.ts';
import { proxyCachePrefix } from '../gateway/cache-keys.ts';

/** AAD of an MCP server's sealed upstream token (server/src/snapshot/load.ts opens it with the same string). */
export const tokenAad = (id: string) => `mcp:${id}`;

function isBlank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

function asObject(body: unknown): Record<string, unknown> {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/** The row of an owned server, locked for the rest of the transaction; 404 when it is not the caller's. */
export async function lockOwnedMcp(q: Queryable, userId: string, id: string): Promise<McpRow> {
  if (!isUuid(id)) throw new HttpError(404, Msg.mcpNotFound);
  const rows = await q.query<McpRow>('SELECT * FROM mcp_servers WHERE id = $1 AND user_id = $2 FOR UPDATE', [id, userId]);
  if (!rows[0]) throw new HttpError(404, Msg.mcpNotFound);
  return rows[0];
}

export async function createMcpServer(s: Services, userId: string, body: unknown): Promise<McpServerRecord> {
  const raw = asObject(body);
  if (isBlank(raw.name) || isBlank(raw.url)) throw new HttpError(400, Msg.mcpRequired);
  const input = parseOr400(mcpCreateSchema, raw);
  const token = createUpstreamAuth(input.authType, input.authToken);
  const auth = await validateInboundAuth(input.auth);
  await assertMcpQuota(s.db, userId); // fail fast before DNS; checked again under lock below
  const pin = await pinOr400(s.upstreams, input.url, 'url');
  const id = randomUUID();
  const now = unixNow(s.clock);
  const { record, version } = await s.db.tx(async (q) => {
    await assertMcpQuota(q, userId);
    const [row] = await q.query<McpRow>(
      `INSERT INTO mcp_servers (id, user_id, name, url, auth_type, auth_token_enc, auth, tools, pin, created_at, tool_pinning)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, '[]'::jsonb, $8::jsonb, $9, $10) RETURNING *`,
      [id, userId, input.name, input.url, input.authType, token === null ? null : s.secrets.seal(token, tokenAad(id)),
        JSON.stringify(auth), JSON.stringify(pin), now, input.toolPinning],
    );
    const version = await createGatewayObjects(q, {
      proxyId: id, kind: 'mcp', userId, upstreamUrl: input.url, auth, proxyDomain: s.config.proxyDomain, nowS: now,
    });
    return { record: mcpRecord(row!, [], s.config.proxyDomain), version };
  });
  await s.configChanged(version);
  return record;
}

/**
 * Pinning compares with fingerprints, which catalogs discovered before tool pinning existed lack: switching it on for
 * one would withhold or block every tool, so the owner runs discovery first (which pins what the upstream serves now).
 */
function assertPinnable(row: McpRow): void {
  if ((row.tools ?? []).some((t) => !t.fingerprint)) throw new HttpError(409, MSG_UNPINNED_CATALOG);
}

export const MSG_UNPINNED_CATALOG = 'toolPinning: the tool catalog was discovered before tool pinning existed and has no fingerprints; run tool discovery (POST /api/mcp/:id/tools) first';

export async function listMcpServers(s: Services, userId: string): Promise<McpServerRecord[]> {
  const rows = await s.db.query<McpRow>('SELECT * FROM mcp_servers WHERE user_id = $1 ORDER BY created_at, id', [userId]);
  const resources = await resourceSummariesByMcp(s.db, rows.map((r) => r.id));
  return rows.map((r) => mcpRecord(r, resources.get(r.id) ?? [], s.config.proxyDomain));
}

export async function getMcpServer(s: Services, userId: string, id: string): Promise<McpServerRecord> {
  const row = await requireMcp<McpRow>(s.db, userId, id);
  return loadMcpRecord(s.db, row, s.config.proxyDomain, true);
}

export async function updateMcpServer(s: Services, userId: string, id: string, body: unknown): Promise<McpServerRecord> {
  await requireMcp(s.db, userId, id); // 404 before any validation message
  const raw = asObject(body);
  if (('name' in raw && isBlank(raw.name)) || ('url' in raw && isBlank(raw.url))) throw new HttpError(400, Msg.mcpRequired);
  const input = parseOr400(mcpPatchSchema, body);
  const auth = input.auth === undefined ? undefined : await validateInboundAuth(input.auth);
  const pin = input.url === undefined ? undefined : await pinOr400(s.upstreams, input.url, 'url');
  const now = unixNow(s.clock);
  const { record, version } = await s.db.tx(async (q) => {
    const cur = await lockOwnedMcp(q, userId, id);
    const upstream = patchUpstreamAuth(
      { authType: cur.auth_type, hasToken: cur.auth_token_enc !== null },
      { authType: input.authType, authToken: input.authToken },
    );
    const tokenEnc = upstream.token.kind === 'set' ? s.secrets.seal(upstream.token.token, tokenAad(id))
      : upstream.token.kind === 'clear' ? null : cur.auth_token_enc;
    const toolPinning = input.toolPinning ?? cur.tool_pinning;
    if (toolPinning !== 'off' && cur.tool_pinning === 'off') assertPinnable(cur);
    const [row] = await q.query<McpRow>(
      `UPDATE mcp_servers SET name = $2, url = $3, auth_type = $4, auth_token_enc = $5, auth = $6::jsonb, pin = $7::jsonb, tool_pinning = $8
        WHERE id = $1 RETURNING *`,
      [id, input.name ?? cur.name, input.url ?? cur.url, upstream.authType, tokenEnc,
        JSON.stringify(auth === undefined ? cur.auth : auth), JSON.stringify(pin === undefined ? cur.pin : pin), toolPinning],
    );
    if (input.url !== undefined) await setUpstream(q, id, input.url);
    if (auth !== undefined) await setPluginAuth(q, id, auth, now);
    // Name and upstream token live in the snapshot too: one bump covers every field.
    const version = await bumpConfigVersion(q);
    return { record: await loadMcpRecord(q, row!, s.config.proxyDomain), version };
  });
  await s.configChanged(version);
  return record;
}

export async function deleteMcpServer(s: Services, userId: string, id: string): Promise<void> {
  const version = await s.db.tx(async (q) => {
    await lockOwnedMcp(q, userId, id);
    await stripProxyTags(q, 'mcp', id);
    const v = await deleteGatewayObjects(q, id);
    await q.query('DELETE FROM mcp_servers WHERE id = $1', [id]); // resources cascade
    return v;
  });
  await s.configChanged(version);
  // The record is gone; a cache the state store cannot drop now expires with its TTL (at most a day).
  await s.state.delPrefix(proxyCachePrefix(id)).catch((err: unknown) => {
    s.log.warn('could not drop the cache of a deleted MCP server', { mcpId: id, err });
  });
}
