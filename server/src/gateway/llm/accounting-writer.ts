// Usage rows, durable budget charges and conversation logs are buffered here and written in one transaction per
// flush, off the request path (like audit/writer.ts): the proxy hot path never waits for PostgreSQL. Usage is
// aggregated per (proxy, day, key, model, pricing version) between flushes. A failed flush keeps everything for
// the next attempt (bounded), so a short database outage loses nothing and slows no request; a record the database
// refuses for its data is dropped alone.
//
// The records of live streams (live-streams.ts) go out in the same batches, before the ends of streams: a stream's
// end deletes its record in the transaction that writes its usage, charges and outcome event (stream-checkpoints.ts).
import { insertAuditEvents } from '../../audit/writer.ts';
import { applyCharges, type SpendCharge } from '../../budgets/durable.ts';
import { insertLogs, sealLogs, type ConversationLog, type SealedLog } from '../../conversation-logs/store.ts';
import type { SecretBox } from '../../crypto/secrets.ts';
import { isDataError, writeOneByOne, type Db, type Queryable } from '../../db/db.ts';
import type { AccountingSink, Log } from '../capabilities.ts';
import { addUsage, upsertUsage, type UsageIncrement } from '../../usage/rows.ts';
import type { CheckpointRow } from './live-streams.ts';
import { closeCheckpoints, upsertCheckpoints, type StreamEnd } from './stream-checkpoints.ts';

const MAX_PENDING = 100_000;
const RETRY_MS = 2000;
/**
 * What the logs waiting for a flush may hold, prompts and completions together. A logged prompt is the whole request
 * body (up to 32 MB by default, more if the owner's tag raises it), and storing one of 32 MB takes the embedded
 * database about a second: clients that send large prompts faster than that must not grow the backlog until the
 * process runs out of memory. Beyond it a log is dropped, counted and logged, as when the count bound is reached.
 */
export const MAX_PENDING_LOG_BYTES = 256 * 1024 * 1024;

export interface AccountingWriterOptions {
  /** How long records wait before a flush, in ms (default 250). */
  intervalMs?: number;
  /** MAX_PENDING_LOG_BYTES unless set (tests). */
  maxLogBytes?: number;
}

const logBytes = (l: ConversationLog) => l.prompt.length + l.completion.length;

export class AccountingWriter implements AccountingSink {
  private usage = new Map<string, UsageIncrement>();
  private charges: SpendCharge[] = [];
  private logs: ConversationLog[] = [];
  private pendingLogBytes = 0;
  /** The latest records of the live streams (a newer set replaces an unwritten older one). */
  private checkpoints: CheckpointRow[] | undefined;
  private ends: StreamEnd[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private dropped = 0;

  private readonly intervalMs: number;
  private readonly maxLogBytes: number;

  constructor(private readonly db: Db, private readonly secrets: SecretBox, private readonly log: Log, o: AccountingWriterOptions = {}) {
    this.intervalMs = o.intervalMs ?? 250;
    this.maxLogBytes = o.maxLogBytes ?? MAX_PENDING_LOG_BYTES;
  }

  addUsage(u: UsageIncrement): void {
    if (this.usage.size < MAX_PENDING) addUsage(this.usage, u);
    else this.dropped++;
    this.schedule();
  }

  /** The records of the live streams, as they are now. */
  checkpoint(rows: CheckpointRow[]): void {
    this.checkpoints = rows;
    this.schedule();
  }

  /** A checkpointed stream's usage, charges and outcome event: written with the deletion of its record. */
  addStreamEnd(e: StreamEnd): void {
    if (this.ends.length < MAX_PENDING) this.ends.push(e);
    else this.dropped++;
    this.schedule();
  }

  addCharge(c: SpendCharge): void {
    if (this.charges.length < MAX_PENDING) this.charges.push(c);
    else this.dropped++;
    this.schedule();
  }

  addLog(l: ConversationLog): void {
    const bytes = logBytes(l);
    if (this.logs.length < MAX_PENDING / 10 && this.pendingLogBytes + bytes <= this.maxLogBytes) {
      this.logs.push(l);
      this.pendingLogBytes += bytes;
    } else {
      this.dropped++;
    }
    this.schedule();
  }

  /** Charges to a window not yet in PostgreSQL (a window rebuilt from the durable copy must include them). */
  pendingSpend(llmId: string, scope: string, windowTag: string): number {
    let sum = windowSum(this.charges, llmId, scope, windowTag) + windowSum(this.inFlight, llmId, scope, windowTag);
    for (const e of this.ends) sum += windowSum(e.charges, llmId, scope, windowTag);
    for (const e of this.endsInFlight) sum += windowSum(e.charges, llmId, scope, windowTag);
    return sum;
  }

  private inFlight: SpendCharge[] = [];
  private endsInFlight: StreamEnd[] = [];

  private schedule(delay = this.intervalMs): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delay);
    this.timer.unref();
  }

  /** Writes everything buffered so far (tests and shutdown call it to make rows visible at once). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (!this.usage.size && !this.charges.length && !this.logs.length && !this.checkpoints && !this.ends.length) return;
    this.flushing = this.writeBatch().finally(() => { this.flushing = undefined; });
    await this.flushing;
  }

  private async writeBatch(): Promise<void> {
    const usage = [...this.usage.values()];
    const charges = this.charges;
    const logs = this.logs;
    const checkpoints = this.checkpoints ?? [];
    const ends = this.ends;
    this.usage = new Map();
    this.charges = [];
    this.logs = [];
    this.pendingLogBytes = 0;
    this.checkpoints = undefined;
    this.ends = [];
    this.inFlight = charges;
    this.endsInFlight = ends;
    let sealed: SealedLog[] | undefined;
    try {
      // Sealed before the transaction opens: a large log takes many turns of the event loop to seal.
      sealed = await sealLogs(this.secrets, logs);
      const batch = sealed;
      await this.db.tx(async (q) => {
        await upsertCheckpoints(q, checkpoints);
        await this.writeEnds(q, ends, usage, charges);
        await insertLogs(q, batch);
      });
    } catch (err) {
      const left = sealed && isDataError(err)
        ? await this.writeSeparately({ checkpoints, usage, charges, logs: sealed, ends }, err)
        : { usage, charges, logs, ends };
      if (left.usage.length || left.charges.length || left.logs.length || left.ends.length) {
        this.log.warn('LLM accounting flush failed; will retry', { err, usage: left.usage.length, charges: left.charges.length, logs: left.logs.length, streams: left.ends.length });
        this.requeue(left.usage, left.charges, left.logs, left.ends);
      }
      // Unwritten records of live streams are retried unless a newer set came meanwhile.
      if (!isDataError(err)) this.checkpoints ??= checkpoints;
    } finally {
      this.inFlight = [];
      this.endsInFlight = [];
    }
    if (this.dropped) {
      this.log.warn('LLM accounting buffer overflowed; records dropped', { dropped: this.dropped });
      this.dropped = 0;
    }
  }

  /** Ended streams, with the usage and charges of the batch (one usage row per key: the upsert needs that). */
  private async writeEnds(q: Queryable, ends: readonly StreamEnd[], usage: readonly UsageIncrement[], charges: readonly SpendCharge[]): Promise<void> {
    const s = await closeCheckpoints(q, ends);
    if (s.recovered) this.log.warn('streams charged by a recovery while this gateway could not write ended here; only the rest was charged', { streams: s.recovered });
    const rows = new Map<string, UsageIncrement>();
    for (const u of usage) addUsage(rows, u);
    for (const u of s.usage) addUsage(rows, u);
    await upsertUsage(q, [...rows.values()]);
    await applyCharges(q, [...charges, ...s.charges]);
    await insertAuditEvents(q, s.events);
  }

  private requeue(usage: UsageIncrement[], charges: SpendCharge[], logs: ConversationLog[], ends: StreamEnd[]): void {
    this.ends = ends.concat(this.ends).slice(0, MAX_PENDING);
    for (const u of usage) this.addUsage(u);
    this.charges = charges.concat(this.charges).slice(0, MAX_PENDING);
    this.logs = logs.concat(this.logs).slice(0, MAX_PENDING / 10);
    this.pendingLogBytes = this.logs.reduce((n, l) => n + logBytes(l), 0);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.schedule(RETRY_MS);
  }

  /**
   * The batch held a record the database refuses (a data error): every record goes in its own transaction and only
   * the refused ones are dropped, so one bad record can never stop accounting for everyone. Returns what is still
   * unwritten when the database itself failed on the way (those are retried).
   */
  private async writeSeparately({ checkpoints, usage, charges, logs, ends }: Batch, cause: unknown) {
    // Records of live streams first: an end in this batch must find (and delete) its record.
    await writeOneByOne(checkpoints, (x) => this.db.tx((q) => upsertCheckpoints(q, [x])));
    const u = await writeOneByOne(usage, (x) => this.db.tx((q) => upsertUsage(q, [x])));
    const c = await writeOneByOne(charges, (x) => this.db.tx((q) => applyCharges(q, [x])));
    const l = await writeOneByOne(logs, (x) => this.db.tx((q) => insertLogs(q, [x])));
    const e = await writeOneByOne(ends, (x) => this.db.tx((q) => this.writeEnds(q, [x], [], [])));
    if (u.dropped || c.dropped || l.dropped || e.dropped) {
      this.log.warn('LLM accounting records refused by the database were dropped', { usage: u.dropped, charges: c.dropped, logs: l.dropped, streams: e.dropped, err: cause });
    }
    return { usage: u.rest, charges: c.rest, logs: l.rest.map((x) => x.log), ends: e.rest };
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush().catch((err: unknown) => this.log.warn('LLM accounting final flush failed', { err }));
  }
}

/** One flush's records, taken out of the buffers together. */
interface Batch {
  checkpoints: CheckpointRow[];
  usage: UsageIncrement[];
  charges: SpendCharge[];
  logs: SealedLog[];
  ends: StreamEnd[];
}

function windowSum(charges: readonly SpendCharge[], llmId: string, scope: string, windowTag: string): number {
  let sum = 0;
  for (const c of charges) if (c.llmId === llmId && c.scope === scope && c.windowTag === windowTag) sum += c.microCents;
  return sum;
}
