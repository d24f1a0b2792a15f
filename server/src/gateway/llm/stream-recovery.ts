// Charges the streams of gateways that died (docs/faults.md, "A gateway that dies"). Every gateway sweeps every
// third of TOLLGATE_STREAM_ORPHAN_MS: records nobody has updated for that long are claimed, and their usage row,
// durable budget charges and one outcome event (`error`, reason `gateway_lost`) are written in the claiming
// transaction; then the hot budget copy is charged and the dead gateway's reservations are given back.
//
// A sweep right after this gateway could not reach the database is skipped: the other gateways were probably cut off
// too, and get one interval to write their heartbeats before their records count as stale.
import type { BudgetLedger } from '../../budgets/ledger.ts';
import { applyCharges } from '../../budgets/durable.ts';
import { insertAuditEvents } from '../../audit/writer.ts';
import type { Db } from '../../db/db.ts';
import type { GatewayDeps, Log, MetricsSink } from '../capabilities.ts';
import { addUsage, upsertUsage, type UsageIncrement } from '../../usage/rows.ts';
import { claimOrphans, orphanAccounting, purgeRecovered, type Orphan } from './stream-checkpoints.ts';

export class StreamRecovery {
  private timer: NodeJS.Timeout | undefined;
  private lastFailed = false;
  private running: Promise<number> | undefined;

  private readonly log: Log;
  private readonly metrics: MetricsSink | undefined;

  /** obs: where recoveries are reported (the gateway passes its deps). */
  constructor(
    private readonly db: Db,
    private readonly ledger: BudgetLedger,
    obs: Pick<GatewayDeps, 'log' | 'metrics'>,
    private readonly orphanMs: number,
  ) {
    this.log = obs.log;
    this.metrics = obs.metrics;
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), Math.max(1000, Math.floor(this.orphanMs / 3)));
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    try {
      // Right after a failure only the purge runs: it tells whether the database answers again, and claims nothing.
      if (this.lastFailed) await purgeRecovered(this.db);
      else await this.sweep();
      this.lastFailed = false;
    } catch (err) {
      if (!this.lastFailed) this.log.warn('recovering the streams of stopped gateways failed; will retry', { err });
      this.lastFailed = true;
    }
  }

  /** One sweep; returns how many streams it charged. */
  sweep(): Promise<number> {
    this.running ??= this.sweepOnce().finally(() => { this.running = undefined; });
    return this.running;
  }

  private async sweepOnce(): Promise<number> {
    const orphans = await this.db.tx(async (q) => {
      const claimed = await claimOrphans(q, this.orphanMs);
      if (!claimed.length) return claimed;
      const usage = new Map<string, UsageIncrement>();
      const all = claimed.map(orphanAccounting);
      for (const a of all) addUsage(usage, a.usage);
      await upsertUsage(q, [...usage.values()]);
      await applyCharges(q, all.flatMap((a) => a.charges));
      await insertAuditEvents(q, all.map((a) => a.event));
      return claimed;
    });
    await purgeRecovered(this.db);
    if (!orphans.length) return 0;
    await Promise.all(orphans.map((o) => this.chargeHot(o)));
    for (const _ of orphans) this.metrics?.event('llm', 'error', 'gateway_lost');
    this.log.warn('charged the streams of a gateway that stopped without finishing them', {
      streams: orphans.length, proxies: [...new Set(orphans.map((o) => o.record.llmId))],
    });
    return orphans.length;
  }

  private async chargeHot(o: Orphan): Promise<void> {
    if (!o.record.hold) return;
    await this.ledger.chargeRecovered(o.record.hold, o.record.costMicro, o.atMs)
      .catch((err: unknown) => this.log.warn('a recovered stream\'s hot budget charge failed', { err, llm: o.record.llmId }));
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
