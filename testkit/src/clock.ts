// A clock tests move by hand, passed to startTestApp({ clock }) (it becomes Services.clock): TOTP steps, session
// expiry, and the TTLs of the in-process state (rate-limit windows, bans, caches), which expire when the clock is
// moved past them instead of after a real wait. It stands still until moved. Redis keeps its own real-time TTLs,
// so a test that runs against Redis (REDIS_URL) must still wait for those.
import type { Clock } from '@tollgate/server/src/services.ts';

export interface ManualClock extends Clock {
  advanceMs(ms: number): void;
  advanceS(seconds: number): void;
  unixS(): number;
}

export function manualClock(startMs = Date.now()): ManualClock {
  let now = startMs;
  return {
    nowMs: () => now,
    advanceMs(ms) { now += ms; },
    advanceS(seconds) { now += seconds * 1000; },
    unixS: () => Math.floor(now / 1000),
  };
}
