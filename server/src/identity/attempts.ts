// Fixed-window attempt counters in the shared state store (Redis across replicas), for the 2FA code checks and
// sign-in. Every counter is bumped atomically BEFORE the credential is checked: a limit read first and bumped after a
// failure lets parallel guesses all pass the read before any of them fails, so under concurrency the limit would not
// hold. Counting first also counts guesses whose request is otherwise malformed.
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

/**
 * Not in the spec: slows password guessing against one account. Every password check is counted first; a successful
 * one is refunded (refundAttempt), so the window holds at most 10 failed checks per e-mail.
 */
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

/**
 * Gives back the attempt a success counted. Only the caller's own unit: resetting the window instead would let a
 * user's sign-in wipe out the failures an attacker had spent, and a window that expired meanwhile is not recreated.
 */
export async function refundAttempt(state: State, limit: AttemptLimit, subject: string): Promise<void> {
  await state.incrIfExists(limit.keyPrefix + subject, -1, limit.windowMs);
}
