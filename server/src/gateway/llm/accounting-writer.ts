// Usage rows, durable budget charges and conversation logs are buffered here and written in one transaction per
// flush, off the request path (like audit/writer.ts): the proxy hot path never waits for PostgreSQL. Usage is
// aggregated per (proxy, day, key, model, pricing version) between flushes. A failed flush keeps everything for
// the next attempt (bounded), so a short database outage loses nothing and slows no request; a record the database
// refuses for its data is dropped alone.
import { applyCharges, type SpendCharge } from '../../budgets/durable.ts';
import { insertLogs, type ConversationLog } from '../../conversation-logs/store.ts';
import type { SecretBox } from '../../crypto/secrets.ts';
import { isDataError, writeOneByOne, type Db } from '../../db/db.ts';
import type { Logger } from '../../log.ts';
import { upsertUsage, usageKey, type UsageIncrement } from '../../usage/rows.ts';

const MAX_PENDING = 100_000;
const RETRY_MS = 2000;

export class AccountingWriter {
  private usage = new Map<string, UsageIncrement>();
  private charges: SpendCharge[] = [];
  private logs: ConversationLog[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private dropped = 0;

  constructor(private readonly db: Db, private readonly secrets: SecretBox, private readonly log: Logger, private readonly intervalMs = 250) {}

  addUsage(u: UsageIncrement): void {
    const k = usageKey(u);
    const cur = this.usage.get(k);
    if (cur) {
      cur.requests += u.requests;
      cur.inputTokens += u.inputTokens;
      cur.cachedInputTokens += u.cachedInputTokens;
      cur.outputTokens += u.outputTokens;
      cur.estimatedRequests += u.estimatedRequests;
      cur.costMicroCents += u.costMicroCents;
    } else if (this.usage.size < MAX_PENDING) this.usage.set(k, { ...u });
    else this.dropped++;
    this.schedule();
  }

  addCharge(c: SpendCharge): void {
    if (this.charges.length < MAX_PENDING) this.charges.push(c);
    else this.dropped++;
    this.schedule();
  }

  addLog(l: ConversationLog): void {
    if (this.logs.length < MAX_PENDING / 10) this.logs.push(l);
    else this.dropped++;
    this.schedule();
  }

  /** Charges to a window not yet in PostgreSQL (a window rebuilt from the durable copy must include them). */
  pendingSpend(llmId: string, scope: string, windowTag: string): number {
    let sum = 0;
    for (const c of this.charges) if (c.llmId === llmId && c.scope === scope && c.windowTag === windowTag) sum += c.microCents;
    for (const c of this.inFlight) if (c.llmId === llmId && c.scope === scope && c.windowTag === windowTag) sum += c.microCents;
    return sum;
  }

  private inFlight: SpendCharge[] = [];

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
    if (!this.usage.size && !this.charges.length && !this.logs.length) return;
    this.flushing = this.writeBatch().finally(() => { this.flushing = undefined; });
    await this.flushing;
  }

  private async writeBatch(): Promise<void> {
    const usage = [...this.usage.values()];
    const charges = this.charges;
    const logs = this.logs;
    this.usage = new Map();
    this.charges = [];
    this.logs = [];
    this.inFlight = charges;
    try {
      await this.db.tx(async (q) => {
        await upsertUsage(q, usage);
        await applyCharges(q, charges);
        await insertLogs(q, this.secrets, logs);
      });
    } catch (err) {
      const left = isDataError(err) ? await this.writeSeparately(usage, charges, logs, err) : { usage, charges, logs };
      if (left.usage.length || left.charges.length || left.logs.length) {
        this.log.warn('LLM accounting flush failed; will retry', { err, usage: left.usage.length, charges: left.charges.length, logs: left.logs.length });
        this.requeue(left.usage, left.charges, left.logs);
      }
    } finally {
      this.inFlight = [];
    }
    if (this.dropped) {
      this.log.warn('LLM accounting buffer overflowed; records dropped', { dropped: this.dropped });
      this.dropped = 0;
    }
  }

  private requeue(usage: UsageIncrement[], charges: SpendCharge[], logs: ConversationLog[]): void {
    for (const u of usage) this.addUsage(u);
    this.charges = charges.concat(this.charges).slice(0, MAX_PENDING);
    this.logs = logs.concat(this.logs).slice(0, MAX_PENDING / 10);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.schedule(RETRY_MS);
  }

  /**
   * The batch held a record the database refuses (a data error): every record goes in its own transaction and only
   * the refused ones are dropped, so one bad record can never stop accounting for everyone. Returns what is still
   * unwritten when the database itself failed on the way (those are retried).
   */
  private async writeSeparately(usage: UsageIncrement[], charges: SpendCharge[], logs: ConversationLog[], cause: unknown) {
    const u = await writeOneByOne(usage, (x) => this.db.tx((q) => upsertUsage(q, [x])));
    const c = await writeOneByOne(charges, (x) => this.db.tx((q) => applyCharges(q, [x])));
    const l = await writeOneByOne(logs, (x) => this.db.tx((q) => insertLogs(q, this.secrets, [x])));
    if (u.dropped || c.dropped || l.dropped) {
      this.log.warn('LLM accounting records refused by the database were dropped', { usage: u.dropped, charges: c.dropped, logs: l.dropped, err: cause });
    }
    return { usage: u.rest, charges: c.rest, logs: l.rest };
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush().catch((err: unknown) => this.log.warn('LLM accounting final flush failed', { err }));
  }
}
