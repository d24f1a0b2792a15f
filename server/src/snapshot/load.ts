// Builds a Snapshot from storage: a handful of queries per config version, never per request.
import type { ProviderId, ToolDefinition, ToolPinningMode } from '@tollgate/contract';
import type { SecretBox } from '../crypto/secrets.ts';
import type { Db, Queryable, Row } from '../db/db.ts';
import type { Rule } from '@tollgate/contract';
import type { Pin } from '../net/upstream-guard.ts';
import { mapInTurns } from '../turns.ts';
import { assembleConfig, mergeConfig, type LoadedConfig, type SnapshotEntries } from './assemble.ts';
import { readChangedUsers, readConfigVersion } from './changes.ts';
import { checkSnapshotSchema } from './schema-version.ts';
import { QUOTA_TAGS, tagLimit } from '@tollgate/contract';
import {
  DEFAULT_AUTH, DEFAULT_LLM_MAX_REQ_BODY_KB, DEFAULT_LLM_MAX_RESP_BODY_KB, DEFAULT_MCP_MAX_REQ_BODY_KB, DEFAULT_MCP_MAX_RESP_BODY_KB, type BudgetConfig, type ClientCredential,
  type InboundAuth, type McpTool, type OwnerLimits, type PendingToolChange, type ProxyConfig, type Snapshot, type SyntheticResource,
} from './snapshot.ts';

interface ServiceRow {
  [k: string]: unknown;
  service_id: string;
  proxy_id: string;
  proxy_kind: 'mcp' | 'llm';
  user_id: string;
  upstream_url: string;
  plugin_auth: InboundAuth | null;
  rules: Rule[];
  consumer_tags: string[];
}

/**
 * The snapshot is built from every tenant's rows on each config version; with 2,000 users (4,000 proxies, 10,000
 * keys) the build took about 60 ms of the event loop in one piece. It takes a turn after this many proxies or keys,
 * about 1 ms each (docs/performance.md, "A snapshot of many tenants").
 */
const PROXIES_PER_TURN = 100;
const CREDENTIALS_PER_TURN = 1000;

/** The rows of a query: every one, or, with `users`, those of these owners only. */
type Read = <T extends Row>(sql: string, users?: readonly string[]) => Promise<T[]>;

/** Rows fetched per part from a cursor on PostgreSQL. */
const FETCH_ROWS = 100;

/**
 * A reload reads only the users whose rows changed since the snapshot it replaces, unless there are more of them
 * than this: then the one pass over every tenant costs less than as many filtered reads.
 */
export const MAX_CHANGED_USERS = 500;

/** Every tenant's proxies and keys: one snapshot load (the gateway keeps the result to reload incrementally). */
export async function loadSnapshot(db: Db, secrets: SecretBox): Promise<Snapshot> {
  return (await loadConfig(db, secrets)).snapshot;
}

/**
 * A new snapshot. Given the previous one, it reads only the proxies and keys of the users that changed since (the
 * triggers of server/src/db/migrations/010_config_changes_per_statement.sql record them) and keeps every other
 * user's objects as they were; without it, or when those changes are no longer kept or too many, it reads every
 * tenant.
 *
 * On PostgreSQL the snapshot is read in one read-only, repeatable-read transaction (every table as of one moment),
 * and a full load reads each query through a cursor a part of FETCH_ROWS rows at a time: node-postgres parses a
 * result's rows as they arrive, and 10,000 keys arriving at once held the event loop for about 50 ms. PGlite sends a
 * large result in parts itself (PgliteReply.more), and a transaction there would hold the one database for the whole
 * load; a user's rows that change during an embedded load are read again by the reload of that change's version.
 */
export async function loadConfig(db: Db, secrets: SecretBox, previous?: LoadedConfig): Promise<LoadedConfig> {
  if (db.kind !== 'postgres') return loadFrom(db, (sql, users) => db.query(sql, users && [users]), secrets, previous);
  return db.tx(async (q) => {
    await q.exec('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    return loadFrom(q, inParts(q), secrets, previous);
  });
}

async function loadFrom(q: Queryable, read: Read, secrets: SecretBox, previous: LoadedConfig | undefined): Promise<LoadedConfig> {
  await checkSnapshotSchema(q);
  const version = await readConfigVersion(q);
  const since = previous?.snapshot.version;
  const users = since !== undefined && since <= version ? await readChangedUsers(q, since, version) : undefined;
  if (!previous || !users || users.length > MAX_CHANGED_USERS) return assembleConfig(version, await buildEntries(await readRows(read), secrets));
  if (!users.length) return version === since ? previous : { snapshot: { ...previous.snapshot, version }, owners: previous.owners, read: 'incremental' };
  return mergeConfig(previous, version, users, await buildEntries(await readRows(read, users), secrets));
}

/** Reads a whole result through a cursor; a filtered read (a few users' rows) is small and read at once. */
function inParts(q: Queryable): Read {
  let cursors = 0;
  return async <T extends Row>(sql: string, users?: readonly string[]) => {
    if (users) return q.query<T>(sql, [users]);
    const cursor = `snapshot_rows_${cursors++}`;
    await q.exec(`DECLARE ${cursor} NO SCROLL CURSOR FOR ${sql}`);
    const rows: T[] = [];
    for (let part = FETCH_ROWS; part === FETCH_ROWS;) {
      const got = await q.query<T>(`FETCH ${FETCH_ROWS} FROM ${cursor}`);
      for (const r of got) rows.push(r);
      part = got.length;
    }
    await q.exec(`CLOSE ${cursor}`);
    return rows;
  };
}

type ResourceRow = { id: string; mcp_id: string; uri: string; name: string; description: string | null; mime_type: string; content: string };
type KeyBudgetRow = { llm_id: string; credential_id: string; period: BudgetConfig['period']; cap_usd: number; hard_block: boolean };
type CredentialRow = { id: string; consumer_id: string; user_id: string; key_hash: string; tags: string[]; is_pat: boolean };
type RouteRow = { service_id: string; kind: 'host' | 'path'; match: string };

/** A query's filter on its owner column, when the read is for some users only. */
function owned(users: readonly string[] | undefined, column: string): string {
  return users ? ` WHERE ${column} = ANY($1::uuid[])` : '';
}

/**
 * Every table read here needs the triggers that record whom its writes change (migrations 009 and 010), or a change
 * to it would reach no gateway; incremental.test.ts finds the tables in these queries and checks.
 */
async function readRows(read: Read, users?: readonly string[]): Promise<SnapshotRows> {
  const services = await read<ServiceRow>(
    `SELECT s.id AS service_id, s.proxy_id, s.proxy_kind, s.user_id, s.upstream_url, p.auth AS plugin_auth, p.rules,
            co.tags AS consumer_tags
       FROM gateway_services s JOIN gateway_plugins p ON p.service_id = s.id JOIN consumers co ON co.user_id = s.user_id${owned(users, 's.user_id')}`, users);
  const routes = await read<RouteRow>(
    `SELECT r.service_id, r.kind, r.match FROM gateway_routes r JOIN gateway_services s ON s.id = r.service_id${owned(users, 's.user_id')}`, users);
  const mcps = new Map((await read<McpRow & { id: string }>(
    `SELECT id, name, auth_type, auth_token_enc, tools, pin, tool_pinning FROM mcp_servers${owned(users, 'user_id')}`, users)).map((r) => [r.id, r]));
  const toolChanges = await read<ToolChangeRow>(
    `SELECT c.mcp_id, c.tool, c.fingerprint, c.definition, c.detected_at FROM mcp_tool_changes c JOIN mcp_servers m ON m.id = c.mcp_id${owned(users, 'm.user_id')}
      ORDER BY c.tool`, users);
  const llms = new Map((await read<LlmRow & { id: string }>(
    `SELECT id, name, provider, allowed_models, provider_key_enc, log_conversations, budget, pin FROM llm_proxies${owned(users, 'user_id')}`, users)).map((r) => [r.id, r]));
  const resources = await read<ResourceRow>(
    `SELECT r.id, r.mcp_id, r.uri, r.name, r.description, r.mime_type, r.content FROM mcp_resources r JOIN mcp_servers m ON m.id = r.mcp_id${owned(users, 'm.user_id')}
      ORDER BY r.created_at, r.uri`, users);
  const keyBudgets = await read<KeyBudgetRow>(
    `SELECT b.llm_id, b.credential_id, b.period, b.cap_usd, b.hard_block FROM key_budgets b JOIN llm_proxies l ON l.id = b.llm_id${owned(users, 'l.user_id')}`, users);
  const credentials = await read<CredentialRow>(
    `SELECT c.id, c.consumer_id, co.user_id, c.key_hash, c.tags, c.is_pat FROM credentials c JOIN consumers co ON co.id = c.consumer_id${owned(users, 'co.user_id')}`, users);
  return {
    services, routes, credentials,
    byKind: { mcps, llms, resByMcp: groupBy(resources, (r) => r.mcp_id), budgetsByLlm: groupBy(keyBudgets, (r) => r.llm_id), changesByMcp: groupBy(toolChanges, (r) => r.mcp_id) },
  };
}

interface SnapshotRows {
  services: ServiceRow[];
  routes: RouteRow[];
  credentials: CredentialRow[];
  byKind: ProxyRows;
}

/** The proxies, routes and keys the rows describe, built a bounded amount at a time. */
async function buildEntries(rows: SnapshotRows, secrets: SecretBox): Promise<SnapshotEntries> {
  const built = await mapInTurns(rows.services, (s) => buildProxy(s, secrets, rows.byKind), PROXIES_PER_TURN);
  const proxies: ProxyConfig[] = [];
  const byService = new Map<string, string>();
  rows.services.forEach((s, i) => {
    const p = built[i];
    if (!p) return;
    proxies.push(p);
    byService.set(s.service_id, p.id);
  });
  const routes: SnapshotEntries['routes'] = [];
  for (const r of rows.routes) {
    const proxyId = byService.get(r.service_id);
    if (proxyId) routes.push({ kind: r.kind, match: r.match, proxyId });
  }
  const credentials = await mapInTurns(rows.credentials, (c): [string, ClientCredential] =>
    [c.key_hash, { credentialId: c.id, consumerId: c.consumer_id, userId: c.user_id, tags: c.tags, isPat: c.is_pat }], CREDENTIALS_PER_TURN);
  return { proxies, routes, credentials };
}

function limitsFrom(tags: string[]): OwnerLimits {
  return {
    mcpMaxRespBodyKb: tagLimit(tags, 'private:permissions:mcp:max_resp_body_kb:') ?? DEFAULT_MCP_MAX_RESP_BODY_KB,
    llmMaxRespBodyKb: tagLimit(tags, 'private:permissions:llm:max_resp_body_kb:') ?? DEFAULT_LLM_MAX_RESP_BODY_KB,
    mcpMaxReqBodyKb: tagLimit(tags, QUOTA_TAGS.mcpMaxReqBodyKb) ?? DEFAULT_MCP_MAX_REQ_BODY_KB,
    llmMaxReqBodyKb: tagLimit(tags, QUOTA_TAGS.llmMaxReqBodyKb) ?? DEFAULT_LLM_MAX_REQ_BODY_KB,
  };
}

type McpRow = { name: string; auth_type: string; auth_token_enc: string | null; tools: McpTool[]; pin: Pin | null; tool_pinning: ToolPinningMode };
type ToolChangeRow = { mcp_id: string; tool: string; fingerprint: string; definition: ToolDefinition; detected_at: number };
type LlmRow = { name: string; provider: ProviderId; allowed_models: string[]; provider_key_enc: string | null; log_conversations: boolean; budget: BudgetConfig | null; pin: Pin | null };

/** The per-kind rows of one snapshot load, keyed by proxy id (built once per load, shared by every service). */
interface ProxyRows {
  mcps: Map<string, McpRow>;
  llms: Map<string, LlmRow>;
  resByMcp: Map<string, ResourceRow[]>;
  budgetsByLlm: Map<string, KeyBudgetRow[]>;
  changesByMcp: Map<string, ToolChangeRow[]>;
}

type ProxyBase = Pick<ProxyConfig, 'id' | 'userId' | 'upstreamUrl' | 'auth' | 'rules' | 'limits'>;

function buildProxy(s: ServiceRow, secrets: SecretBox, rows: ProxyRows): ProxyConfig | undefined {
  const base = {
    id: s.proxy_id, userId: s.user_id, upstreamUrl: s.upstream_url, auth: s.plugin_auth ?? DEFAULT_AUTH,
    rules: s.rules ?? [], limits: limitsFrom(s.consumer_tags ?? []),
  };
  return s.proxy_kind === 'mcp' ? buildMcp(base, secrets, rows) : buildLlm(base, secrets, rows);
}

function buildMcp(base: ProxyBase, secrets: SecretBox, rows: ProxyRows): ProxyConfig | undefined {
  const m = rows.mcps.get(base.id);
  if (!m) return undefined;
  const resources: SyntheticResource[] = (rows.resByMcp.get(base.id) ?? []).map((r) => ({
    id: r.id, uri: r.uri, name: r.name, description: r.description, mimeType: r.mime_type, content: r.content,
  }));
  const tools = m.tools ?? [];
  return {
    ...base, kind: 'mcp', name: m.name, pin: m.pin, tools, resources,
    toolPinning: m.tool_pinning ?? 'off', pendingToolChanges: pendingChanges(tools, rows.changesByMcp.get(base.id) ?? []),
    upstreamToken: m.auth_type === 'bearer' && m.auth_token_enc ? secrets.open(m.auth_token_enc, `mcp:${base.id}`) : undefined,
  };
}

/** The pending rows that still differ from the pinned catalog (a gateway may record a definition just approved). */
function pendingChanges(tools: McpTool[], changes: ToolChangeRow[]): PendingToolChange[] {
  const pinned = new Map(tools.map((t) => [t.name, t.fingerprint]));
  return changes.filter((c) => pinned.get(c.tool) !== c.fingerprint)
    .map((c) => ({ tool: c.tool, fingerprint: c.fingerprint, definition: c.definition, detectedAt: Number(c.detected_at) }));
}

function buildLlm(base: ProxyBase, secrets: SecretBox, rows: ProxyRows): ProxyConfig | undefined {
  const l = rows.llms.get(base.id);
  if (!l) return undefined;
  const keyBudgets: Record<string, BudgetConfig> = {};
  for (const b of rows.budgetsByLlm.get(base.id) ?? []) keyBudgets[b.credential_id] = { period: b.period, capUsd: b.cap_usd, hardBlock: b.hard_block };
  return {
    ...base, kind: 'llm', name: l.name, pin: l.pin, provider: l.provider, allowedModels: l.allowed_models ?? [],
    logConversations: l.log_conversations, budget: l.budget, keyBudgets,
    providerKey: l.provider_key_enc ? secrets.open(l.provider_key_enc, `llm:${base.id}`) : undefined,
  };
}

function groupBy<T>(rows: T[], key: (r: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = m.get(k);
    if (list) list.push(r);
    else m.set(k, [r]);
  }
  return m;
}
