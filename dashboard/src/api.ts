// The management API as the dashboard calls it: the contract's typed client on this origin. The session cookie is
// HttpOnly and travels by itself (same origin); the dashboard never holds a credential in script or storage.
import { ApiClient, type ApiResult } from '@tollgate/contract';

export const api = new ApiClient({ endpoint: location.origin, timeoutMs: 30_000 });

/** The message to show for a failed call: the API's own words (its `{error}`), else the status. */
export function failure(r: ApiResult<unknown>): string | undefined {
  if (r.ok) return undefined;
  return r.error.message || `Request failed (${r.error.status})`;
}
