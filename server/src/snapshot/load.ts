// Builds a Snapshot from storage: a handful of queries per config version, never per request.
import type { ProviderId, ToolDefinition, ToolPinningMode } from '@tollgate/contract';
import type { SecretBox } from '../crypto/secrets.ts';
import type { Db, Queryable, Row } from '../db/db.ts';
import type { Rule } from '@tollgate/contract';
import type { Pin } from '../net/upstream-guard.ts';
import { mapInTurns } from '../turns.ts';
import { readConfigVersion } from './changes.ts';
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

/** Every row of a query without parameters. */
type ReadAll = <T extends Row>(sql: string) => Promise<T[]>;

/** Rows fetched per part from a cursor on PostgreSQL. */
const FETCH_ROWS = 100;

/**
 * On PostgreSQL the snapshot is read in one read-only, repeatable-read transaction (every table as of one moment),
 * each query through a cursor a part of FETCH_ROWS rows at a time: node-postgres parses a result's rows as they arrive,
 * and 10,000 keys arriving at once held the event loop for about 50 ms. PGlite sends a large result in parts itself
 * (PgliteReply.more), and a transaction there would hold the one database for the whole load.
 */
export async function loadSnapshot(db: Db, secrets: SecretBox): Promise<Snapshot> {
  if (db.kind !== 'postgres') return buildSnapshot(db, (sql) => db.query(sql), secrets);
  return db.tx(async (q) => {
    await q.exec('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    return buildSnapshot(q, inParts(q), secrets);
  });
}

function inParts(q: Queryable): ReadAll {
  let cursors = 0;
  return async <T extends Row>(sql: string) => {
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

async function buildSnapshot(q: Queryable, read: ReadAll, secrets: SecretBox): Promise<Snapshot> {
  await checkSnapshotSchema(q);
  const version = await readConfigVersion(q);
  const services = await read<ServiceRow>(
    `SELECT s.id AS service_id, s.proxy_id, s.proxy_kind, s.user_id, s.upstream_url, p.auth AS plugin_auth, p.rules,
            co.tags AS consumer_tags
       FROM gateway_services s JOIN gateway_plugins p ON p.service_id = s.id JOIN consumers co ON co.user_id = s.user_id`,
  );
  const routes = await read<{ service_id: string; kind: 'host' | 'path'; match: string }>('SELECT service_id, kind, match FROM gateway_routes');
  const mcps = new Map((await read<McpRow & { id: string }>(
    'SELECT id, name, auth_type, auth_token_enc, tools, pin, tool_pinning FROM mcp_servers')).map((r) => [r.id, r]));
  const toolChanges = await read<ToolChangeRow>('SELECT mcp_id, tool, fingerprint, definition, detected_at FROM mcp_tool_changes ORDER BY tool');
  const llms = new Map((await read<{ id: string; name: string; provider: ProviderId; allowed_models: string[]; provider_key_enc: string | null; log_conversations: boolean; budget: BudgetConfig | null; pin: Pin | null }>(
    'SELECT id, name, provider, allowed_models, provider_key_enc, log_conversations, budget, pin FROM llm_proxies')).map((r) => [r.id, r]));
  const resources = await read<{ id: string; mcp_id: string; uri: string; name: string; description: string | null; mime_type: string; content: string }>(
    'SELECT id, mcp_id, uri, name, description, mime_type, content FROM mcp_resources ORDER BY created_at, uri');
  const keyBudgets = await read<{ llm_id: string; credential_id: string; period: BudgetConfig['period']; cap_usd: number; hard_block: boolean }>(
    'SELECT llm_id, credential_id, period, cap_usd, hard_block FROM key_budgets');
  const creds = await read<{ id: string; consumer_id: string; user_id: string; key_hash: string; tags: string[]; is_pat: boolean }>(
    'SELECT c.id, c.consumer_id, co.user_id, c.key_hash, c.tags, c.is_pat FROM credentials c JOIN consumers co ON co.id = c.consumer_id');

  const resByMcp = groupBy(resources, (r) => r.mcp_id);
  const changesByMcp = groupBy(toolChanges, (r) => r.mcp_id);
  const budgetsByLlm = groupBy(keyBudgets, (r) => r.llm_id);
  const proxies = new Map<string, ProxyConfig>();
  const byService = new Map<string, string>();
  const rows: ProxyRows = { mcps, llms, resByMcp, budgetsByLlm, changesByMcp };
  const built = await mapInTurns(services, (s) => buildProxy(s, secrets, rows), PROXIES_PER_TURN);
  services.forEach((s, i) => {
    const p = built[i];
    if (!p) return;
    proxies.set(p.id, p);
    byService.set(s.service_id, p.id);
  });
  const hosts = new Map<string, string>();
  const paths = new Map<string, string>();
  for (const r of routes) {
    const id = byService.get(r.service_id);
    if (id) (r.kind === 'host' ? hosts : paths).set(r.match, id);
  }
  const credentialsByHash = new Map(await mapInTurns(creds, (c): [string, ClientCredential] =>
    [c.key_hash, { credentialId: c.id, consumerId: c.consumer_id, userId: c.user_id, tags: c.tags, isPat: c.is_pat }], CREDENTIALS_PER_TURN));
  return { version, proxies, hosts, paths, credentialsByHash };
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
  resByMcp: Map<string, Array<{ id: string; uri: string; name: string; description: string | null; mime_type: string; content: string }>>;
  budgetsByLlm: Map<string, Array<{ credential_id: string; period: BudgetConfig['period']; cap_usd: number; hard_block: boolean }>>;
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
