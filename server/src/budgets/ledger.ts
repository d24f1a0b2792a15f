// Budget enforcement on the shared state store, so every gateway replica sees one window per proxy and per key.
//
// Per scope (the proxy, or one credential on it) the store holds:
//   w:<tag>  1 + micro-cents charged in the window. A hydrated key is never 0, so 0 means "missing" (first use, or a
//            Redis flush or restart). Only a rebuild creates it (SET NX, from PostgreSQL, the durable copy, plus this
//            process's unflushed charges); a charge adds to it only if it exists (never creating it).
//   h:<tag>  rebuild lease: the replica whose INCR returns 1 rebuilds the window; the others wait for the key.
//   r        micro-cents reserved by requests in flight (hard caps only).
//
// A request on a hard cap reserves its estimated cost first and is admitted only when the spend plus the other
// requests' reservations is still below the cap, so N parallel requests overshoot the cap by at most what their
// reservations under-estimated. When the response is accounted the actual cost is charged and the reservation
// released, in that order (an observer may count a request twice for an instant, never zero times).
//
// Why a rebuild is exact (docs/faults.md): every charge goes to the hot copy first and to the durable copy (the
// `onCharge` writer) only afterwards. A charge that finds the window missing waits for the rebuild and lands on the
// new key, so the rebuild's read (durable plus this process's unflushed charges) holds exactly the charges made into
// copies that are gone, and the new key gets exactly the ones made after it. Charges another replica made into a
// lost copy reach PostgreSQL within one flush interval: a rebuild of a window that had spend waits `rebuildGraceMs`
// for them before it reads.
//
// Redis unreachable: admissions read the durable copy (PostgreSQL plus this process's unflushed charges) and reserve
// in this process only; charges go to the durable copy alone and mark the window dirty. The first use of a dirty
// window once Redis answers again drops its hot copy, which is then rebuilt from the durable copy: so the outage's
// charges are counted once whether Redis came back empty or with its old data (or took some of them before it went).
import { setTimeout as sleep } from 'node:timers/promises';
import { DatastoreUnavailable } from '../db/db.ts';
import type { BudgetConfig } from '../snapshot/snapshot.ts';
import type { Logger } from '../log.ts';
import type { State } from '../state/state.ts';
import type { SpendCharge } from './durable.ts';
import { capMicroCents, windowAt, type BudgetWindow } from './windows.ts';

export interface ScopeBudget {
  llmId: string;
  /** 'proxy' or the credential id of a per-key budget. */
  scope: string;
  budget: BudgetConfig;
}

export interface ScopeVerdict {
  scope: ScopeBudget;
  window: BudgetWindow;
  /** Charged spend of the window (micro-cents); 0 when the scope only tracks (capUsd 0). */
  spentMicro: number;
  capMicro: number;
}

export interface HoldEntry {
  scope: ScopeBudget;
  window: BudgetWindow;
  /** A hard cap: the request must reserve its estimate here. */
  hard: boolean;
  /**
   * Where the reservation was made, once it was (so a failure never releases what was not reserved): the shared
   * store, or this process alone while Redis is unreachable.
   */
  reserved: false | 'shared' | 'local';
  /**
   * The scope's keys in the window, built once per request instead of at each of its four uses. Absent on the holds
   * of stream records written before it existed (keysOf builds them then).
   */
  keys?: WindowKeys;
}

/** What a request holds between admission and accounting. */
export interface BudgetHold {
  estimateMicro: number;
  entries: HoldEntry[];
}

export interface Admission {
  /** A hard-capped scope whose window is used up: the request is answered 402 (nothing stays reserved). */
  blocked?: ScopeVerdict;
  /** Scopes without hardBlock already at or over their cap: the request passes, flagged by a header and an event. */
  overSoft: ScopeVerdict[];
  hold: BudgetHold;
}

/** Durable spend of a window: PostgreSQL plus, on a gateway, charges still waiting in its write buffer. */
export type DurableSpendReader = (llmId: string, scope: string, windowTag: string) => Promise<number>;

export interface LedgerTiming {
  /**
   * How long a rebuild of a window that had spend waits before it reads the durable copy, so that charges other
   * replicas made into the lost hot copy have been flushed to PostgreSQL (two of the writers' 250 ms intervals).
   */
  rebuildGraceMs?: number;
  /** How long a request waits for a window another replica is rebuilding before it reads the durable copy itself. */
  rebuildWaitMs?: number;
}

export interface LedgerOptions extends LedgerTiming {
  /** Receives every charge for the durable copy (the gateway's batch writer). */
  onCharge?: (c: SpendCharge) => void;
}

const RESERVATION_TTL_MS = 15 * 60_000;
const WINDOW_GRACE_MS = 2 * 86_400_000;
/** A rebuild lease outlives any sane rebuild; a replica that died holding one delays the next rebuild this long. */
const LEASE_MS = 10_000;
const WAIT_STEP_MS = 20;

interface WindowKeys { spent: string; lease: string; reserved: string }

function keys(sc: ScopeBudget, w: BudgetWindow): WindowKeys {
  const base = `budget:${sc.llmId}:${sc.scope}:`;
  return { spent: `${base}w:${w.tag}`, lease: `${base}h:${w.tag}`, reserved: `${base}r` };
}

const keysOf = (e: HoldEntry): WindowKeys => (e.keys ??= keys(e.scope, e.window));

const isRedisDown = (err: unknown) => err instanceof DatastoreUnavailable && err.store === 'redis';

/** Window keys outlive their window by two days (reads of the previous window); fixed windows never expire. */
function windowTtl(w: BudgetWindow, nowMs: number): number {
  return w.endMs ? Math.max(60_000, w.endMs - nowMs + WINDOW_GRACE_MS) : 0;
}

export class BudgetLedger {
  private readonly hydrating = new Map<string, Promise<void>>();
  /** Track-only windows this process has already made sure exist (so their first charge never has to rebuild). */
  private readonly warm = new Set<string>();
  /** Reservations made while Redis was unreachable, per reservation key (this process only). */
  private readonly localReserved = new Map<string, number>();
  /** Hot keys of windows charged while Redis was unreachable: dropped and rebuilt once it answers again. */
  private readonly dirty = new Set<string>();
  private readonly resyncing = new Map<string, Promise<void>>();
  private readonly graceMs: number;
  private readonly waitMs: number;
  private readonly onCharge: (c: SpendCharge) => void;
  private outage = false;

  constructor(
    private readonly state: State,
    private readonly durable: DurableSpendReader,
    private readonly log: Logger,
    opts: LedgerOptions = {},
  ) {
    this.onCharge = opts.onCharge ?? (() => undefined);
    this.graceMs = opts.rebuildGraceMs ?? 500;
    this.waitMs = opts.rebuildWaitMs ?? 3000;
  }

  async admit(scopes: readonly ScopeBudget[], estimateMicro: number, nowMs: number): Promise<Admission> {
    const entries: HoldEntry[] = scopes.map((scope) => {
      const window = windowAt(scope.budget.period, nowMs);
      return { scope, window, hard: scope.budget.hardBlock && capMicroCents(scope.budget) > 0, reserved: false, keys: keys(scope, window) };
    });
    const hold: BudgetHold = { estimateMicro: Math.max(0, Math.round(estimateMicro)), entries };
    let checks: Array<{ v: ScopeVerdict; othersReserved: number; hard: boolean }>;
    try {
      checks = await Promise.all(entries.map((e) => this.check(e, hold.estimateMicro, nowMs)));
    } catch (err) {
      await this.release(hold);
      throw err;
    }
    const blocked = checks.find((c) => c.hard && c.v.spentMicro + c.othersReserved >= c.v.capMicro);
    if (blocked) {
      await this.release(hold);
      return { blocked: blocked.v, overSoft: [], hold: { estimateMicro: 0, entries: [] } };
    }
    const overSoft = checks.filter((c) => !c.hard && c.v.capMicro > 0 && c.v.spentMicro >= c.v.capMicro).map((c) => c.v);
    return { overSoft, hold };
  }

  private async check(e: HoldEntry, estimate: number, nowMs: number) {
    const capMicro = capMicroCents(e.scope.budget);
    const v: ScopeVerdict = { scope: e.scope, window: e.window, spentMicro: 0, capMicro };
    if (capMicro <= 0) {
      // Tracking only: nothing to enforce, so a spend that cannot be read at all does not refuse the request.
      await this.warmUp(e, nowMs).catch((err: unknown) => this.log.warn('budget window could not be read; tracking continues', { err, llm: e.scope.llmId }));
      return { v, othersReserved: 0, hard: false };
    }
    // The reservation and the read touch different keys and neither needs the other's answer, so they share one round
    // trip. allSettled, not all: admit() releases the hold when this throws, which must not happen before the
    // reservation is made (or it would stay reserved).
    const [reserved, spent] = await Promise.allSettled([e.hard ? this.reserve(e, estimate) : 0, this.readSpent(e.scope, e.window, nowMs, keysOf(e))]);
    if (reserved.status === 'rejected') throw reserved.reason;
    if (spent.status === 'fulfilled') v.spentMicro = spent.value;
    // A hard cap that can be read from neither store refuses (the caller answers 503); a soft one only flags.
    else if (e.hard) throw spent.reason;
    else this.log.warn('budget window could not be read; the soft cap is not flagged', { err: spent.reason, llm: e.scope.llmId });
    return { v, othersReserved: reserved.value, hard: e.hard };
  }

  /** Reserves the estimate; returns what the *other* requests in flight hold. */
  private async reserve(e: HoldEntry, estimate: number): Promise<number> {
    const key = keysOf(e).reserved;
    try {
      const r = await this.state.incr(key, estimate, RESERVATION_TTL_MS, true);
      e.reserved = 'shared';
      return Math.max(0, r.value - estimate);
    } catch (err) {
      if (!isRedisDown(err)) throw err;
      this.noteOutage(err);
      const others = this.localReserved.get(key) ?? 0;
      this.localReserved.set(key, others + estimate);
      e.reserved = 'local';
      return others;
    }
  }

  /**
   * Charges the actual cost to every scope of the hold and releases its reservations. The durable copy's charges go
   * to `durable` (default: the writer given to the constructor).
   */
  async settle(hold: BudgetHold, actualMicro: number, nowMs: number, durable: (c: SpendCharge) => void = this.onCharge): Promise<void> {
    const amount = Math.max(0, Math.round(actualMicro));
    const entries = hold.entries;
    hold.entries = []; // settling twice must not charge twice
    await Promise.all(entries.map(async (e) => {
      try {
        if (amount > 0) await this.charge(e, amount, nowMs);
      } finally {
        // After the hot copy, never before: a rebuild reading the durable copy must not see a charge that it will
        // also find on the new hot key.
        if (amount > 0) durable({ llmId: e.scope.llmId, scope: e.scope.scope, windowTag: e.window.tag, microCents: amount, atMs: nowMs });
        await this.unreserve(e, hold.estimateMicro);
      }
    }));
  }

  /**
   * The hot side of a charge a recovery already wrote to the durable copy (the stream of a gateway that died), and the
   * release of that gateway's reservations. A window whose hot copy is missing is left alone: its rebuild reads the
   * durable copy, which has the charge. (A rebuild that lands between the durable write and this call counts the charge
   * twice in the hot copy until the window's next rebuild: the cap errs towards refusing.)
   */
  async chargeRecovered(hold: BudgetHold, amountMicro: number, nowMs: number): Promise<void> {
    const amount = Math.max(0, Math.round(amountMicro));
    await Promise.all(hold.entries.map(async (e) => {
      try {
        if (amount > 0) await this.state.incrIfExists(keysOf(e).spent, amount, windowTtl(e.window, nowMs));
      } catch (err) {
        this.dirty.add(keysOf(e).spent);
        this.log.warn('a recovered stream\'s charge did not reach the hot budget copy; it is rebuilt from the durable copy', { err, llm: e.scope.llmId });
      }
      // The dead gateway's reservation was made in the shared store; a local one died with it.
      if (e.reserved === 'shared') await this.unreserve(e, hold.estimateMicro);
    }));
  }

  /** Gives reservations back without charging (request refused or failed before the upstream answered). */
  async release(hold: BudgetHold): Promise<void> {
    const entries = hold.entries;
    hold.entries = [];
    await Promise.all(entries.map((e) => this.unreserve(e, hold.estimateMicro)));
  }

  /** Current spend of the scope's window (API: usage/daily `window`, key listings). */
  async windowSpent(scope: ScopeBudget, nowMs: number): Promise<{ window: BudgetWindow; spentMicro: number }> {
    const window = windowAt(scope.budget.period, nowMs);
    return { window, spentMicro: await this.readSpent(scope, window, nowMs) };
  }

  /** Zeroes the current window in the state store (the caller zeroes the durable copy first). */
  async reset(scope: ScopeBudget, nowMs: number): Promise<BudgetWindow> {
    const window = windowAt(scope.budget.period, nowMs);
    const k = keys(scope, window);
    await this.state.set(k.spent, '1', windowTtl(window, nowMs));
    return window;
  }

  /**
   * A track-only window is not read per request, so without this its first charge would find it missing and wait
   * for its rebuild. Reading it once per process and window rebuilds it first.
   */
  private async warmUp(e: HoldEntry, nowMs: number): Promise<void> {
    const k = keysOf(e).spent;
    if (this.warm.has(k) && !this.dirty.has(k)) return;
    await this.readSpent(e.scope, e.window, nowMs, keysOf(e));
    if (this.warm.size >= 10_000) this.warm.clear();
    this.warm.add(k);
  }

  private async charge(e: HoldEntry, amount: number, nowMs: number): Promise<void> {
    const k = keysOf(e);
    const ttl = windowTtl(e.window, nowMs);
    try {
      const resyncing = this.resync(k.spent, k.lease);
      if (resyncing) await resyncing;
      let v = await this.state.incrIfExists(k.spent, amount, ttl);
      if (v === undefined) {
        // The hot copy is gone: the charge waits for the rebuild and lands on the new key.
        await this.hydrate(e.scope, e.window, nowMs);
        v = await this.state.incrIfExists(k.spent, amount, ttl);
      }
      if (v === undefined) throw new Error('budget window was not rebuilt in time');
      this.noteRecovery();
    } catch (err) {
      // The charge reaches only the durable copy: the hot copy is rebuilt from it at its next use.
      this.dirty.add(k.spent);
      if (!isRedisDown(err)) throw err;
      this.noteOutage(err);
    }
  }

  private async unreserve(e: HoldEntry, estimate: number): Promise<void> {
    if (!e.reserved || estimate <= 0) return;
    const key = keysOf(e).reserved;
    if (e.reserved === 'local') {
      const left = (this.localReserved.get(key) ?? 0) - estimate;
      if (left > 0) this.localReserved.set(key, left);
      else this.localReserved.delete(key);
      return;
    }
    try {
      // A reservation counter that vanished (Redis restarted) has nothing left to release.
      await this.state.incrIfExists(key, -estimate, RESERVATION_TTL_MS);
    } catch (err) {
      this.log.warn('budget reservation release failed; it expires with the reservation counter', { err, llm: e.scope.llmId });
    }
  }

  /**
   * Charged spend of a window: the hot copy (rebuilt first if it is missing), or the durable copy when Redis is
   * unreachable (PostgreSQL plus this process's unflushed charges).
   */
  private async readSpent(scope: ScopeBudget, window: BudgetWindow, nowMs: number, k = keys(scope, window)): Promise<number> {
    try {
      // Awaited only when there is a resync: an await of undefined still costs every request a turn of the queue.
      const resyncing = this.resync(k.spent, k.lease);
      if (resyncing) await resyncing;
      let v = await this.state.getNumber(k.spent);
      if (v === 0) {
        await this.hydrate(scope, window, nowMs);
        v = await this.state.getNumber(k.spent);
      }
      this.noteRecovery();
      if (v > 0) return v - 1;
      // Another replica's rebuild did not finish in time: read what it would have read.
    } catch (err) {
      if (!isRedisDown(err)) throw err;
      this.noteOutage(err);
    }
    return this.durable(scope.llmId, scope.scope, window.tag);
  }

  /**
   * A window charged during an outage: drop its hot copy (once Redis answers) so that it is rebuilt. Concurrent
   * requests on the window wait for the same drop, so none reads the stale copy meanwhile.
   */
  private resync(spentKey: string, leaseKey: string): Promise<void> | undefined {
    const running = this.resyncing.get(spentKey);
    if (running) return running;
    if (!this.dirty.size || !this.dirty.delete(spentKey)) return undefined;
    const p = this.state.del(spentKey, leaseKey)
      .catch((err: unknown) => {
        this.dirty.add(spentKey);
        throw err;
      })
      .finally(() => this.resyncing.delete(spentKey));
    this.resyncing.set(spentKey, p);
    return p;
  }

  private hydrate(scope: ScopeBudget, window: BudgetWindow, nowMs: number): Promise<void> {
    const k = keys(scope, window);
    let p = this.hydrating.get(k.spent);
    if (!p) {
      p = this.ensureWindow(scope, window, nowMs).finally(() => this.hydrating.delete(k.spent));
      this.hydrating.set(k.spent, p);
    }
    return p;
  }

  /** Rebuilds the window if this process gets the lease; otherwise waits (bounded) for the replica that has it. */
  private async ensureWindow(scope: ScopeBudget, window: BudgetWindow, nowMs: number): Promise<void> {
    const k = keys(scope, window);
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const lease = await this.state.incr(k.lease, 1, LEASE_MS);
      if (lease.value === 1) return this.rebuild(scope, window, nowMs);
      await sleep(WAIT_STEP_MS);
      if ((await this.state.getNumber(k.spent)) > 0 || Date.now() > deadline) return;
    }
  }

  private async rebuild(scope: ScopeBudget, window: BudgetWindow, nowMs: number): Promise<void> {
    const k = keys(scope, window);
    try {
      let durable = await this.durable(scope.llmId, scope.scope, window.tag);
      if (durable > 0 && this.graceMs > 0) {
        // The window had spend, so its hot copy was lost: let the other replicas flush what they charged into it.
        await sleep(this.graceMs);
        durable = await this.durable(scope.llmId, scope.scope, window.tag);
      }
      await this.state.setIfAbsent(k.spent, String(Math.round(durable) + 1), windowTtl(window, nowMs));
    } finally {
      // The next loss of this window can be rebuilt at once (a late rebuilder finds the key and changes nothing).
      await this.state.del(k.lease).catch(() => undefined);
    }
  }

  private noteOutage(err: unknown): void {
    if (this.outage) return;
    this.outage = true;
    this.log.warn('Redis unreachable: budgets use the durable copy (PostgreSQL) until it answers again', { err });
  }

  private noteRecovery(): void {
    if (!this.outage) return;
    this.outage = false;
    this.log.info('Redis answers again: budget windows charged meanwhile are rebuilt from the durable copy', { dirty: this.dirty.size });
  }
}
