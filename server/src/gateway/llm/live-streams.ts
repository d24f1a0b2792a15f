// The streamed LLM answers this gateway is relaying, and how far each has got. Every TOLLGATE_STREAM_CHECKPOINT_MS
// their records go to the accounting writer, which writes them (llm_stream_checkpoints) in its next batch; when a
// stream ends, its usage, charges and outcome event are written in the transaction that deletes its record. So if
// the process dies, what was delivered up to the last checkpoint is on record and another gateway charges it
// (stream-recovery.ts), and a stream whose end was written can never be charged by a recovery as well.
import { randomUUID } from 'node:crypto';
import type { BudgetHold } from '../../budgets/ledger.ts';
import type { TokenUsage } from '../../pricing/cost.ts';
import type { RequestDetails } from './charged-details.ts';

/** Everything a recovery needs to charge a stream and write its one outcome event, as delivered so far. */
export interface StreamRecord {
  userId: string | null;
  llmId: string;
  credentialId: string;
  clientIp: string;
  /** The model priced (after model_route) and the one the client asked for (the event's `model`). */
  model: string;
  requestedModel: string | undefined;
  pricingVersion: string;
  startMs: number;
  /** The outcome event's fields known when the stream started (status, endpoint, routing). */
  details: RequestDetails;
  /** The budget scopes and reservations the request holds (the recovery charges them and gives the rest back). */
  hold: BudgetHold | undefined;
  usage: TokenUsage;
  estimated: boolean;
  costMicro: number;
}

export interface CheckpointRow {
  id: string;
  llmId: string;
  record: StreamRecord;
}

export interface LiveStream {
  readonly id: string;
  /**
   * Whether a record of this stream was handed to the writer (so one may exist in the database): its end must then
   * go through the writer's transaction that deletes the record.
   */
  readonly checkpointed: boolean;
  /** Stops checkpointing; returns whether the stream was checkpointed. */
  end(): boolean;
}

export class LiveStreams {
  private readonly live = new Map<string, { snapshot: () => StreamRecord; checkpointed: boolean; sinceMs: number }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly intervalMs: number, private readonly write: (rows: CheckpointRow[]) => void) {}

  begin(snapshot: () => StreamRecord): LiveStream {
    const id = randomUUID();
    const entry = { snapshot, checkpointed: false, sinceMs: performance.now() };
    this.live.set(id, entry);
    this.arm();
    const live = this.live;
    return {
      id,
      get checkpointed() { return entry.checkpointed; },
      end() {
        live.delete(id);
        return entry.checkpointed;
      },
    };
  }

  get size(): number {
    return this.live.size;
  }

  /** The records of the live streams that have run for at least `minAgeMs`, now (each is marked checkpointed). */
  rows(minAgeMs = 0): CheckpointRow[] {
    const out: CheckpointRow[] = [];
    const born = performance.now() - minAgeMs;
    for (const [id, e] of this.live) {
      if (e.sinceMs > born) continue;
      const record = e.snapshot();
      e.checkpointed = true;
      out.push({ id, llmId: record.llmId, record });
    }
    return out;
  }

  private arm(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (!this.live.size) {
        clearInterval(this.timer);
        this.timer = undefined;
        return;
      }
      // Streams younger than one interval wait for the next tick: most answers end within a second, and recording
      // them would cost a write and a delete each to protect less than what a tick's delay already leaves out.
      const rows = this.rows(this.intervalMs);
      if (rows.length) this.write(rows);
    }, this.intervalMs);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
