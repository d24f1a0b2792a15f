// The management API's answers as outcomes.
import type { ApiError, ApiResult } from '@tollgate/contract';
import { apiErrorSummary, printable } from './api-error-summary.ts';
import { failed, invalid, waiting, type Outcome } from './outcome.ts';

/**
 * A failed call as an outcome: transient failures back off, refusals wait for a spec change. The message carries a
 * bounded, printable summary of the answer, never its body (api-error-summary.ts).
 */
export function apiFailure(err: ApiError, action: string): Outcome {
  // A body the contract does not describe: most likely an API of another version than the operator's. Nothing the
  // spec can fix, and retrying soon only repeats it, so it waits; the client's message names the route and the field.
  if (err.drift) {
    return waiting('ContractMismatch', `${action} failed: ${printable(err.message)} (are the operator and the management API of the same version?)`, {}, 60_000);
  }
  const message = `${action} failed (HTTP ${err.status || 'unreachable'}): ${apiErrorSummary(err)}`;
  // The client follows no redirect: whatever the Secret's URL redirects to was never checked against the allow-list.
  if (err.status >= 300 && err.status < 400) return waiting('ConnectionRedirected', message, {}, 30_000);
  if (err.status === 0 || err.status >= 500 || err.status === 429) return failed('ApiUnavailable', message);
  if (err.status === 401 || err.status === 403) return waiting('ConnectionUnauthorized', message, {}, 30_000);
  return invalid('RemoteRejected', message);
}

/** A successful answer's body reshaped (the record inside a wrapper); a failure passes through. */
export function mapBody<T, U>(r: ApiResult<T>, f: (body: T) => U): ApiResult<U> {
  return r.ok ? { ok: true, status: r.status, body: f(r.body) } : r;
}

/** The answer of a DELETE, where "already gone" is success. */
export function deleted(r: ApiResult<unknown>, what: string): Outcome | undefined {
  if (r.ok || r.error.status === 404) return undefined;
  return apiFailure(r.error, `Deleting the ${what}`);
}
