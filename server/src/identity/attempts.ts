// Fixed-window attempt counters in the shared state store (Redis across replicas), for the 2FA code checks and
// failed sign-ins. The counter is bumped before the credential is checked, so guesses are counted even when the
// request is otherwise malformed.
import { HttpError } from '../http/errors.ts';
import type { State } from '../state/state.ts';

export interface AttemptLimit {
  /** State key prefix; the subject (user id, e-mail) is appended. */
  keyPrefix: string;
  max: number;
  windowMs: number;
  message: string;
}

/** Spec: `/api/2fa/challenge` allows 10 attempts per 5 minutes per user, then 429. */
export const MFA_CHALLENGE_ATTEMPTS: AttemptLimit = {
  keyPrefix: 'mfa:challenge:', max: 10, windowMs: 5 * 60_000, message: 'Too many 2FA attempts. Try again later.',
};

/** Not in the spec: the same budget, counted separately, for the code checks of /api/2fa/verify and /disable. */
export const MFA_MANAGE_ATTEMPTS: AttemptLimit = { ...MFA_CHALLENGE_ATTEMPTS, keyPrefix: 'mfa:manage:' };

/** Not in the spec: slows password guessing against one account (counts failures only). */
export const LOGIN_FAILURES: AttemptLimit = {
  keyPrefix: 'login:failures:', max: 10, windowMs: 5 * 60_000, message: 'Too many failed sign-in attempts. Try again later.',
};

function tooMany(limit: AttemptLimit, ttlMs: number): HttpError {
  const retryAfter = Math.max(1, Math.ceil((ttlMs > 0 ? ttlMs : limit.windowMs) / 1000));
  return new HttpError(429, limit.message, { 'retry-after': String(retryAfter) });
}

/** Counts one attempt; throws 429 (with Retry-After) when it is beyond the limit of the window. */
export async function countAttempt(state: State, limit: AttemptLimit, subject: string): Promise<void> {
  const { value, ttlMs } = await state.incr(limit.keyPrefix + subject, 1, limit.windowMs);
  if (value > limit.max) throw tooMany(limit, ttlMs);
}

/** Throws 429 when the window is already exhausted, without counting (for counters bumped only on failure). */
export async function assertUnderLimit(state: State, limit: AttemptLimit, subject: string): Promise<void> {
  const key = limit.keyPrefix + subject;
  if ((await state.getNumber(key)) >= limit.max) throw tooMany(limit, await state.ttl(key));
}
