// Budget enforcement on the shared state store, so every gateway replica sees one window per proxy and per key.
//
// Per scope (the proxy, or one credential on it) the store holds:
//   w:<tag>  1 + micro-cents charged in the window. A hydrated key is never 0, so 0 means "missing" (first use, or a
//            Redis flush) and the value is rebuilt once from PostgreSQL (the durable copy) plus unflushed charges.
//   h:<tag>  hydration marker: the replica whose INCR returns 1 rebuilds the window; the others do not add it twice.
//   r        micro-cents reserved by requests in flight (hard caps only).
//
// A request on a hard cap reserves its estimated cost first and is admitted only when the spend plus the other
// requests' reservations is still below the cap, so N parallel requests overshoot the cap by at most what their
// reservations under-estimated. When the response is accounted the actual cost is charged and the reservation
// released, in that order (an observer may count a request twice for an instant, never zero times).
//
// After a Redis flush the first request that finds a window missing rebuilds it from PostgreSQL plus this process's
// unflushed charges. Charges that land on the new key while that read is in flight can be counted twice (the
// window errs towards blocking); charges another replica has not flushed yet (at most one flush interval) are the
// only ones a rebuild can miss.
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

interface HoldEntry {
  scope: ScopeBudget;
  window: BudgetWindow;
  /** A hard cap: the request must reserve its estimate here. */
  hard: boolean;
  /** Set once the reservation is actually in the store (so a failure never releases what was not reserved). */
  reserved: boolean;
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

const RESERVATION_TTL_MS = 15 * 60_000;
const WINDOW_GRACE_MS = 2 * 86_400_000;

function keys(sc: ScopeBudget, w: BudgetWindow) {
  const base = `budget:${sc.llmId}:${sc.scope}:`;
  return { spent: `${base}w:${w.tag}`, marker: `${base}h:${w.tag}`, reserved: `${base}r` };
}

/** Window keys outlive their window by two days (reads of the previous window); fixed windows never expire. */
function windowTtl(w: BudgetWindow, nowMs: number): number {
  return w.endMs ? Math.max(60_000, w.endMs - nowMs + WINDOW_GRACE_MS) : 0;
}

export class BudgetLedger {
  private readonly hydrating = new Map<string, Promise<void>>();
  /** Track-only windows this process has already made sure exist (so their first charge never has to rebuild). */
  private readonly warm = new Set<string>();

  constructor(
    private readonly state: State,
    private readonly durable: DurableSpendReader,
    private readonly log: Logger,
    /** Receives every charge for the durable copy (the gateway's batch writer). */
    private readonly onCharge: (c: SpendCharge) => void = () => undefined,
  ) {}

  async admit(scopes: readonly ScopeBudget[], estimateMicro: number, nowMs: number): Promise<Admission> {
    const entries: HoldEntry[] = scopes.map((scope) => ({
      scope, window: windowAt(scope.budget.period, nowMs), hard: scope.budget.hardBlock && capMicroCents(scope.budget) > 0, reserved: false,
    }));
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
      await this.warmUp(e, nowMs);
      return { v, othersReserved: 0, hard: false };
    }
    let othersReserved = 0;
    if (e.hard) {
      const r = await this.state.incr(keys(e.scope, e.window).reserved, estimate, RESERVATION_TTL_MS, true);
      e.reserved = true;
      othersReserved = Math.max(0, r.value - estimate);
    }
    v.spentMicro = await this.readSpent(e.scope, e.window, nowMs);
    return { v, othersReserved, hard: e.hard };
  }

  /** Charges the actual cost to every scope of the hold and releases its reservations. */
  async settle(hold: BudgetHold, actualMicro: number, nowMs: number): Promise<void> {
    const amount = Math.max(0, Math.round(actualMicro));
    const entries = hold.entries;
    hold.entries = []; // settling twice must not charge twice
    await Promise.all(entries.map(async (e) => {
      try {
        if (amount > 0) await this.charge(e, amount, nowMs);
      } finally {
        if (amount > 0) this.onCharge({ llmId: e.scope.llmId, scope: e.scope.scope, windowTag: e.window.tag, microCents: amount, atMs: nowMs });
        if (e.reserved) await this.unreserve(e, hold.estimateMicro);
      }
    }));
  }

  /** Gives reservations back without charging (request refused or failed before the upstream answered). */
  async release(hold: BudgetHold): Promise<void> {
    const entries = hold.entries;
    hold.entries = [];
    await Promise.all(entries.filter((e) => e.reserved).map((e) => this.unreserve(e, hold.estimateMicro)));
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
    const ttl = windowTtl(window, nowMs);
    await this.state.set(k.spent, '1', ttl);
    await this.state.incr(k.marker, 1, ttl);
    return window;
  }

  /**
   * A track-only window is not read per request, so without this its first charge would find it missing and rebuild
   * it while other charges land (counting those twice). Reading it once per process and window rebuilds it first.
   */
  private async warmUp(e: HoldEntry, nowMs: number): Promise<void> {
    const k = keys(e.scope, e.window).spent;
    if (this.warm.has(k)) return;
    await this.readSpent(e.scope, e.window, nowMs);
    if (this.warm.size >= 10_000) this.warm.clear();
    this.warm.add(k);
  }

  private async charge(e: HoldEntry, amount: number, nowMs: number): Promise<void> {
    const k = keys(e.scope, e.window);
    const r = await this.state.incr(k.spent, amount, windowTtl(e.window, nowMs));
    // A hydrated window holds at least 1, so getting back exactly our amount means the key had vanished.
    if (r.value === amount) await this.hydrate(e.scope, e.window, nowMs);
  }

  private async unreserve(e: HoldEntry, estimate: number): Promise<void> {
    if (estimate <= 0) return;
    try {
      await this.state.incr(keys(e.scope, e.window).reserved, -estimate, RESERVATION_TTL_MS, true);
    } catch (err) {
      this.log.warn('budget reservation release failed; it expires with the reservation counter', { err, llm: e.scope.llmId });
    }
  }

  private async readSpent(scope: ScopeBudget, window: BudgetWindow, nowMs: number): Promise<number> {
    const k = keys(scope, window);
    let v = await this.state.getNumber(k.spent);
    if (v === 0) {
      await this.hydrate(scope, window, nowMs);
      v = await this.state.getNumber(k.spent);
    }
    return Math.max(0, v - 1);
  }

  private hydrate(scope: ScopeBudget, window: BudgetWindow, nowMs: number): Promise<void> {
    const k = keys(scope, window);
    let p = this.hydrating.get(k.spent);
    if (!p) {
      p = this.rebuild(scope, window, nowMs).finally(() => this.hydrating.delete(k.spent));
      this.hydrating.set(k.spent, p);
    }
    return p;
  }

  private async rebuild(scope: ScopeBudget, window: BudgetWindow, nowMs: number): Promise<void> {
    const k = keys(scope, window);
    const ttl = windowTtl(window, nowMs);
    const m = await this.state.incr(k.marker, 1, ttl);
    if (m.value !== 1) return; // another replica (or an earlier rebuild) already added the durable spend
    try {
      const durable = await this.durable(scope.llmId, scope.scope, window.tag);
      await this.state.incr(k.spent, Math.round(durable) + 1, ttl);
    } catch (err) {
      await this.state.del(k.marker).catch(() => undefined); // let the next request try again
      throw err;
    }
  }
}
