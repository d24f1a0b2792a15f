// Reads of audit_events for the logs, chart, overview and feed endpoints. Every query is scoped to one user (the
// audit_events_user_ts index), so a caller never sees another user's events.
import type { Queryable } from '../db/db.ts';
import { OUTCOME_OF, type Bucket, type ChartRange } from './chart.ts';

/** Spec "Audit log entry"; optional fields are omitted when empty. */
export interface AuditEntry {
  timestamp: number;
  event_type: string;
  client_ip: string;
  mcp_uuid?: string;
  llm_uuid?: string;
  tool?: string;
  model?: string;
  rule_name?: string;
  details: Record<string, unknown>;
}

interface EventRow {
  [k: string]: unknown;
  ts: number;
  event_type: string;
  client_ip: string;
  mcp_uuid: string | null;
  llm_uuid: string | null;
  tool: string | null;
  model: string | null;
  rule_name: string | null;
  details: Record<string, unknown> | null;
}

const ENTRY_COLUMNS = 'ts, event_type, client_ip, mcp_uuid, llm_uuid, tool, model, rule_name, details';
const OPTIONAL = ['mcp_uuid', 'llm_uuid', 'tool', 'model', 'rule_name'] as const;

export function toAuditEntry(r: EventRow): AuditEntry {
  const e: AuditEntry = { timestamp: Number(r.ts), event_type: r.event_type, client_ip: r.client_ip, details: r.details ?? {} };
  for (const k of OPTIONAL) {
    const v = r[k];
    if (v !== null && v !== undefined) e[k] = v;
  }
  return e;
}

export interface EventFilter {
  eventTypes?: readonly string[];
  /** Equality on the event's own columns (GET /api/logs' mcp_uuid, llm_uuid, tool, model). */
  equal?: Partial<Record<'mcp_uuid' | 'llm_uuid' | 'tool' | 'model', string>>;
  /** Inclusive bounds, Unix seconds. */
  from?: number;
  to?: number;
}

/** A WHERE clause over (user, types, time) with positional parameters. */
function where(userId: string, f: EventFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [userId];
  const parts = ['user_id = $1'];
  if (f.eventTypes?.length) {
    parts.push(`event_type IN (${f.eventTypes.map((t) => { params.push(t); return `$${params.length}`; }).join(', ')})`);
  }
  for (const [column, value] of Object.entries(f.equal ?? {})) {
    if (value === undefined) continue;
    params.push(value);
    parts.push(`${column} = $${params.length}`);
  }
  if (f.from !== undefined) { params.push(f.from); parts.push(`ts >= $${params.length}`); }
  if (f.to !== undefined) { params.push(f.to); parts.push(`ts <= $${params.length}`); }
  return { sql: parts.join(' AND '), params };
}

/** One page of events, most recent first (ties broken by insertion order, newest first), and the filtered total. */
export async function listEvents(q: Queryable, userId: string, f: EventFilter & { page: number; limit: number }): Promise<{ entries: AuditEntry[]; total: number }> {
  const { page, limit } = f;
  const w = where(userId, f);
  const [count] = await q.query<{ n: number }>(`SELECT count(*) AS n FROM audit_events WHERE ${w.sql}`, w.params);
  const rows = await q.query<EventRow>(
    `SELECT ${ENTRY_COLUMNS} FROM audit_events WHERE ${w.sql} ORDER BY ts DESC, id DESC LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
    w.params,
  );
  return { entries: rows.map(toAuditEntry), total: Number(count?.n ?? 0) };
}

export async function recentEvents(q: Queryable, userId: string, limit: number): Promise<AuditEntry[]> {
  const rows = await q.query<EventRow>(
    `SELECT ${ENTRY_COLUMNS} FROM audit_events WHERE user_id = $1 ORDER BY ts DESC, id DESC LIMIT ${limit}`, [userId]);
  return rows.map(toAuditEntry);
}

const TYPES_BY_OUTCOME = Object.entries(OUTCOME_OF).reduce<Record<string, string[]>>((acc, [type, outcome]) => {
  (acc[outcome] ??= []).push(type);
  return acc;
}, {});
/** `event_type IN (...)` over constant type names (never user input), checked once at load. */
function typeIn(types: readonly string[]): string {
  for (const t of types) if (!/^[a-z_]+$/.test(t)) throw new Error(`event type ${JSON.stringify(t)} is not a plain identifier`);
  return types.length ? `event_type IN (${types.map((t) => `'${t}'`).join(', ')})` : 'false';
}
/** count(*) per chart series, from the OUTCOME_OF table. */
const OUTCOME_COUNTS = (['allow', 'deny', 'error'] as const)
  .map((o) => `count(*) FILTER (WHERE ${typeIn(TYPES_BY_OUTCOME[o] ?? [])}) AS ${o}`).join(', ');
const ANY_OUTCOME = typeIn(Object.keys(OUTCOME_OF));

/** Outcome counts per aligned bucket that has any; fillBuckets adds the empty ones. */
export async function chartCounts(q: Queryable, userId: string, range: ChartRange): Promise<Map<number, Omit<Bucket, 'ts'>>> {
  const rows = await q.query<{ b: number; allow: number; deny: number; error: number }>(
    `SELECT ts - (ts % $4) AS b, ${OUTCOME_COUNTS}
       FROM audit_events
      WHERE user_id = $1 AND ts >= $2 AND ts < $3 AND ${ANY_OUTCOME}
      GROUP BY b`,
    [userId, range.start, range.end, range.size],
  );
  return new Map(rows.map((r) => [Number(r.b), { allow: Number(r.allow), deny: Number(r.deny), error: Number(r.error) }]));
}

export interface Overview {
  totalMcps: number;
  totalLlmProxies: number;
  totalKeys: number;
  activeRules: number;
  events24h: number;
  allow24h: number;
  deny24h: number;
  error24h: number;
}

/** Management-API requests recorded for PAT callers; not gateway traffic, so not in the traffic counts. */
export const API_REQUEST_EVENT = 'api_request';

export async function overviewCounts(q: Queryable, userId: string, sinceS: number): Promise<Overview> {
  const [o] = await q.query<Record<string, number>>(
    `SELECT
       (SELECT count(*) FROM mcp_servers WHERE user_id = $1) AS mcps,
       (SELECT count(*) FROM llm_proxies WHERE user_id = $1) AS llms,
       (SELECT count(*) FROM credentials c JOIN consumers co ON co.id = c.consumer_id WHERE co.user_id = $1 AND NOT c.is_pat) AS keys,
       (SELECT count(*) FROM gateway_services s JOIN gateway_plugins p ON p.service_id = s.id
          CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(p.rules) = 'array' THEN p.rules ELSE '[]'::jsonb END) AS r(rule)
         WHERE s.user_id = $1 AND coalesce(r.rule->>'enabled', 'true') <> 'false') AS rules`,
    [userId],
  );
  const [e] = await q.query<Record<string, number>>(
    `SELECT count(*) AS events, ${OUTCOME_COUNTS} FROM audit_events WHERE user_id = $1 AND ts >= $2 AND event_type <> $3`,
    [userId, sinceS, API_REQUEST_EVENT],
  );
  const n = (v: unknown) => Number(v ?? 0);
  return {
    totalMcps: n(o?.mcps), totalLlmProxies: n(o?.llms), totalKeys: n(o?.keys), activeRules: n(o?.rules),
    events24h: n(e?.events), allow24h: n(e?.allow), deny24h: n(e?.deny), error24h: n(e?.error),
  };
}

/** Deletes up to `batch` events older than cutoffS; returns how many went (the retention job loops on it). */
export async function deleteEventsBefore(q: Queryable, cutoffS: number, batch: number): Promise<number> {
  const rows = await q.query('DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE ts < $1 LIMIT $2) RETURNING 1', [cutoffS, batch]);
  return rows.length;
}
