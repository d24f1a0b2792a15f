// Audit events are buffered and written in batches off the request path. A failed flush keeps the events for the
// next attempt (bounded), so a short database outage loses nothing and never slows a request.
import { isDataError, writeOneByOne, type Db, type Queryable } from '../db/db.ts';
import { storableJsonInTurns } from '../db/text.ts';
import type { Logger } from '../log.ts';

export interface AuditEvent {
  userId: string | null;
  timestamp: number;
  eventType: string;
  clientIp: string;
  mcpUuid?: string;
  llmUuid?: string;
  tool?: string;
  model?: string;
  ruleName?: string;
  details?: Record<string, unknown>;
}

const MAX_PENDING = 50_000;

/**
 * One statement per batch, its rows one JSON parameter that PostgreSQL expands: the writer's share of the gateway's
 * CPU is then a native JSON.stringify of the events as they are (a slice per turn of the event loop), not ten bound
 * parameters serialised per row.
 * Absent fields (undefined, left out by JSON.stringify) become NULL.
 */
const INSERT = `INSERT INTO audit_events (user_id, ts, event_type, client_ip, mcp_uuid, llm_uuid, tool, model, rule_name, details)
  SELECT "userId", "timestamp", "eventType", coalesce("clientIp", ''), "mcpUuid", "llmUuid", tool, model, "ruleName", coalesce(details, '{}')
  FROM json_to_recordset($1::json) AS r("userId" uuid, "timestamp" bigint, "eventType" text, "clientIp" text, "mcpUuid" uuid, "llmUuid" uuid,
    tool text, model text, "ruleName" text, details jsonb)`;
const BATCH = 500;

/** Inserts events in one statement (inside a caller's transaction: the LLM accounting writes a stream's event with its usage). */
export async function insertAuditEvents(q: Queryable, events: readonly AuditEvent[]): Promise<void> {
  if (events.length) await q.query(INSERT, [await storableJsonInTurns(events)]);
}

export class AuditWriter {
  private pending: AuditEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private dropped = 0;

  constructor(private readonly db: Db, private readonly log: Logger, private readonly intervalMs = 250) {}

  write(e: AuditEvent): void {
    if (this.pending.length >= MAX_PENDING) {
      this.dropped++;
      return;
    }
    this.pending.push(e);
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** Writes everything buffered so far (tests and shutdown call this to make events visible at once). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.flushing) await this.flushing;
    if (!this.pending.length) return;
    this.flushing = this.writeAll().finally(() => { this.flushing = undefined; });
    await this.flushing;
  }

  /**
   * Writes the events buffered when the flush began. Those that arrive meanwhile wait for the next tick, so that they
   * go out together. Draining them as they came made each statement carry only what arrived during the one before
   * (160–240 events at 2,000 requests a second), and an embedded statement costs about 0.8 ms of CPU before its first
   * row (docs/performance.md, "Fewer, larger statements").
   */
  private async writeAll(): Promise<void> {
    let left = this.pending.length;
    while (left > 0) {
      const batch = this.pending.slice(0, Math.min(BATCH, left));
      try {
        await this.insertOrSplit(batch);
        this.pending.splice(0, batch.length);
        left -= batch.length;
      } catch (err) {
        this.log.warn('audit flush failed; will retry', { err, pending: this.pending.length });
        this.timer = setTimeout(() => void this.flush(), 2000);
        this.timer.unref();
        return;
      }
    }
    if (this.dropped) {
      this.log.warn('audit buffer overflowed; events dropped', { dropped: this.dropped });
      this.dropped = 0;
    }
  }

  /**
   * Inserts a batch. When the database refuses its data (SQLSTATE class 22/23: a value no column can hold), the rows
   * go one by one and only the refused ones are dropped, so one bad event can never hold back all the others.
   * Other failures (connection lost) propagate; what was already written one by one leaves the buffer first, so the
   * retry does not write it twice.
   */
  private async insertOrSplit(batch: AuditEvent[]): Promise<void> {
    try {
      await this.insert(batch);
    } catch (err) {
      if (!isDataError(err)) throw err;
      const r = await writeOneByOne(batch, (e) => this.insert([e]));
      if (r.dropped) this.log.warn('audit events refused by the database were dropped', { dropped: r.dropped, err });
      if (r.error !== undefined) {
        this.pending.splice(0, batch.length - r.rest.length);
        throw r.error;
      }
    }
  }

  private async insert(batch: AuditEvent[]): Promise<void> {
    await insertAuditEvents(this.db, batch);
  }

  async close(): Promise<void> {
    // A flush writes what was buffered when it began: events recorded meanwhile (the last requests of a shutdown) go
    // out in another round. Bounded, so that a database that is down cannot hold the shutdown in a loop.
    for (let round = 0; round < 3 && this.pending.length; round++) await this.flush();
    if (this.timer) clearTimeout(this.timer);
  }
}
