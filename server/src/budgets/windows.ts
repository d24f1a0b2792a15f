// Budget windows (spec "Limits"): daily rolls over at UTC midnight, weekly at UTC Monday 00:00, monthly on UTC day 1,
// fixed never (only POST .../budget/reset zeroes it). Pure functions of the clock, so tests pass any instant.
import type { BudgetConfig } from '../snapshot/snapshot.ts';

export type Period = BudgetConfig['period'];

export interface BudgetWindow {
  /** Stable name of the window, e.g. `monthly:2025-03`, `weekly:2025-03-10` (its Monday), `daily:2025-03-14`, `fixed`. */
  tag: string;
  /** Start of the window in ms (0 for fixed). */
  startMs: number;
  /** End of the window in ms; 0 for fixed (it never rolls over by itself). */
  endMs: number;
}

const DAY_MS = 86_400_000;

function ymd(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

// Windows are computed per request; the last answer per period is memoised (a pure function of the instant that
// changes once a day at most), so the hot path does not format dates.
const lastWindow = new Map<Period, BudgetWindow>();

export function windowAt(period: Period, nowMs: number): BudgetWindow {
  const cached = lastWindow.get(period);
  if (cached && (period === 'fixed' || (nowMs >= cached.startMs && nowMs < cached.endMs))) return cached;
  const w = computeWindow(period, nowMs);
  lastWindow.set(period, w);
  return w;
}

function computeWindow(period: Period, nowMs: number): BudgetWindow {
  const d = new Date(nowMs);
  const dayStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  switch (period) {
    case 'daily':
      return { tag: `daily:${ymd(dayStart)}`, startMs: dayStart, endMs: dayStart + DAY_MS };
    case 'weekly': {
      const sinceMonday = (d.getUTCDay() + 6) % 7; // getUTCDay: 0 = Sunday
      const start = dayStart - sinceMonday * DAY_MS;
      return { tag: `weekly:${ymd(start)}`, startMs: start, endMs: start + 7 * DAY_MS };
    }
    case 'monthly': {
      const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
      const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
      return { tag: `monthly:${ymd(start).slice(0, 7)}`, startMs: start, endMs: end };
    }
    case 'fixed':
      return { tag: 'fixed', startMs: 0, endMs: 0 };
  }
}

/** `rollsOverAt` of the API: Unix seconds of the window's end, 0 for a fixed window (it never rolls over). */
export function rollsOverAt(w: BudgetWindow): number {
  return Math.floor(w.endMs / 1000);
}

let lastDay = { startMs: 0, endMs: 0, day: 0 };

/** UTC day as the YYYYMMDD integer used by usage history. */
export function dayNumber(ms: number): number {
  if (ms >= lastDay.startMs && ms < lastDay.endMs) return lastDay.day;
  const startMs = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
  lastDay = { startMs, endMs: startMs + DAY_MS, day: Number(ymd(ms).replaceAll('-', '')) };
  return lastDay.day;
}

/** Cap in micro-cents; 0 means "track only" (spec: capUsd 0 disables the cap). */
export function capMicroCents(b: BudgetConfig): number {
  return Math.round(b.capUsd * 100 * 1_000_000);
}
