// llm_stream_checkpoints: the durable records of streamed LLM answers in flight (live-streams.ts). Heartbeats and
// claims use the database's clock, so gateways on hosts whose clocks differ agree on which records are stale.
//
// Exactly once: a stream's end deletes its record in the transaction that writes its usage, charges and outcome event;
// a recovery claims a record (marks it recovered) in the transaction that writes the same for what was delivered. A
// gateway that was only cut off from the database (alive, but its record went stale and was recovered) finds the mark
// when its stream ends and writes only the difference, and no second event.
import type { AuditEvent } from '../../audit/writer.ts';
import type { SpendCharge } from '../../budgets/durable.ts';
import { dayNumber } from '../../budgets/windows.ts';
import type { Queryable } from '../../db/db.ts';
import { storableJsonInTurns } from '../../db/text.ts';
import type { UsageIncrement } from '../../usage/rows.ts';
import { outcomeDetails } from './charged-details.ts';
import type { CheckpointRow, StreamRecord } from './live-streams.ts';

const DB_NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/** Writes the records of live streams (a recovered record is never revived). Records of deleted proxies are dropped. */
export async function upsertCheckpoints(q: Queryable, rows: readonly CheckpointRow[]): Promise<void> {
  if (!rows.length) return;
  const json = await storableJsonInTurns(rows);
  await q.query(
    `INSERT INTO llm_stream_checkpoints (id, llm_id, heartbeat_ms, record)
     SELECT r.id, r."llmId", ${DB_NOW_MS}, r.record FROM json_to_recordset($1::json) AS r(id uuid, "llmId" uuid, record jsonb)
      WHERE EXISTS (SELECT 1 FROM llm_proxies p WHERE p.id = r."llmId")
     ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record, heartbeat_ms = EXCLUDED.heartbeat_ms
      WHERE llm_stream_checkpoints.recovered_ms IS NULL`,
    [json]);
}

/** A checkpointed stream's end as its gateway accounts it. */
export interface StreamEnd {
  checkpointId: string;
  usage: UsageIncrement | undefined;
  charges: SpendCharge[];
  event: AuditEvent;
}

export interface StreamAccounting {
  usage: UsageIncrement[];
  charges: SpendCharge[];
  events: AuditEvent[];
  /** Ends whose record a recovery had already charged. */
  recovered: number;
}

const minus = (a: number, b: number) => Math.max(0, Math.round(a - b));

/** Deletes the records of ended streams and returns what to write for them. */
export async function closeCheckpoints(q: Queryable, ends: readonly StreamEnd[]): Promise<StreamAccounting> {
  const out: StreamAccounting = { usage: [], charges: [], events: [], recovered: 0 };
  if (!ends.length) return out;
  const gone = await q.query<{ id: string; recovered_ms: string | number | null; record: StreamRecord }>(
    'DELETE FROM llm_stream_checkpoints WHERE id = ANY($1::uuid[]) RETURNING id, recovered_ms, record', [ends.map((e) => e.checkpointId)]);
  const recovered = new Map(gone.filter((r) => r.recovered_ms !== null).map((r) => [r.id, r.record]));
  for (const e of ends) {
    const r = recovered.get(e.checkpointId);
    if (!r) {
      if (e.usage) out.usage.push(e.usage);
      out.charges.push(...e.charges);
      out.events.push(e.event);
      continue;
    }
    out.recovered++;
    if (e.usage) {
      out.usage.push({
        ...e.usage, requests: 0, estimatedRequests: 0,
        inputTokens: minus(e.usage.inputTokens, r.usage.inputTokens), cachedInputTokens: minus(e.usage.cachedInputTokens, r.usage.cachedInputTokens),
        outputTokens: minus(e.usage.outputTokens, r.usage.outputTokens), costMicroCents: minus(e.usage.costMicroCents, r.costMicro),
      });
    }
    for (const c of e.charges) {
      const rest = minus(c.microCents, r.costMicro);
      if (rest > 0) out.charges.push({ ...c, microCents: rest });
    }
  }
  return out;
}

export interface Orphan {
  id: string;
  record: StreamRecord;
  /** The last heartbeat (database clock, ms): what was recorded had been delivered by then. */
  atMs: number;
}

/**
 * Claims (marks recovered) the records nobody has updated for `orphanMs`; the caller writes their accounting in the
 * same transaction. Two gateways sweeping at once never claim the same record (SKIP LOCKED, then the mark).
 */
export async function claimOrphans(q: Queryable, orphanMs: number, limit = 200): Promise<Orphan[]> {
  const rows = await q.query<{ id: string; record: StreamRecord; heartbeat_ms: string | number }>(
    `UPDATE llm_stream_checkpoints SET recovered_ms = ${DB_NOW_MS}
      WHERE id IN (SELECT id FROM llm_stream_checkpoints WHERE recovered_ms IS NULL AND heartbeat_ms < ${DB_NOW_MS} - $1
                   ORDER BY heartbeat_ms LIMIT $2 FOR UPDATE SKIP LOCKED)
      RETURNING id, record, heartbeat_ms`,
    [orphanMs, limit]);
  return rows.map((r) => ({ id: r.id, record: r.record, atMs: Number(r.heartbeat_ms) }));
}

/** Recovered records are kept a day, for a gateway that was only cut off and still has to end its stream. */
export async function purgeRecovered(q: Queryable, keepMs = 86_400_000): Promise<void> {
  await q.query(`DELETE FROM llm_stream_checkpoints WHERE recovered_ms < ${DB_NOW_MS} - $1`, [keepMs]);
}

/** The usage row, budget charges and the one outcome event of a stream whose gateway died. */
export function orphanAccounting(o: Orphan): { usage: UsageIncrement; charges: SpendCharge[]; event: AuditEvent } {
  const r = o.record;
  const usage: UsageIncrement = {
    llmId: r.llmId, day: dayNumber(r.startMs), credentialId: r.credentialId, model: r.model, pricingVersion: r.pricingVersion,
    requests: 1, inputTokens: r.usage.inputTokens, cachedInputTokens: r.usage.cachedInputTokens, outputTokens: r.usage.outputTokens,
    estimatedRequests: r.estimated ? 1 : 0, costMicroCents: r.costMicro,
  };
  const charges = r.costMicro > 0
    ? (r.hold?.entries ?? []).map((e) => ({ llmId: e.scope.llmId, scope: e.scope.scope, windowTag: e.window.tag, microCents: r.costMicro, atMs: o.atMs }))
    : [];
  const event: AuditEvent = {
    userId: r.userId, timestamp: Math.floor(o.atMs / 1000), eventType: 'error', clientIp: r.clientIp, llmUuid: r.llmId, model: r.requestedModel,
    details: outcomeDetails({
      reason: 'gateway_lost', request: r.details, streamed: true, aborted: 'gateway_lost',
      charged: { usage: r.usage, costMicro: r.costMicro, pricingVersion: r.pricingVersion, estimated: r.estimated },
    }),
  };
  return { usage, charges, event };
}
