// The management API's answers as outcomes, and finding (or adopting) the remote object of a Kubernetes object.
import type { ApiClient, ApiError } from '@tollgate/contract';
import { uidOfRemoteName } from '../kinds/identity.ts';
import { apiErrorSummary } from './api-error-summary.ts';
import { failed, invalid, waiting, type Outcome } from './outcome.ts';

/**
 * A failed call as an outcome: transient failures back off, refusals wait for a spec change. The message carries a
 * bounded, printable summary of the answer, never its body (api-error-summary.ts).
 */
export function apiFailure(err: ApiError, action: string): Outcome {
  const message = `${action} failed (HTTP ${err.status || 'unreachable'}): ${apiErrorSummary(err)}`;
  // The client follows no redirect: whatever the Secret's URL redirects to was never checked against the allow-list.
  if (err.status >= 300 && err.status < 400) return waiting('ConnectionRedirected', message, {}, 30_000);
  if (err.status === 0 || err.status >= 500 || err.status === 429) return failed('ApiUnavailable', message);
  if (err.status === 401 || err.status === 403) return waiting('ConnectionUnauthorized', message, {}, 30_000);
  return invalid('RemoteRejected', message);
}

export type Found<T> = { ok: true; remote: T | undefined } | { ok: false; outcome: Outcome };

/**
 * The remote proxy of an object: by the id in its status, else (first create, or the status write was lost in a crash,
 * or the record was deleted behind the operator's back) the one whose name carries the object's UID.
 */
export async function findRemoteProxy<T extends { id: string; name: string }>(
  api: ApiClient, k: { collection: string; listField: string; what: string; whats: string }, statusId: unknown, uid: string,
): Promise<Found<T>> {
  if (typeof statusId === 'string' && statusId) {
    const r = await api.get<T>(`${k.collection}/${encodeURIComponent(statusId)}`);
    if (r.ok) return { ok: true, remote: r.body };
    if (r.error.status !== 404) return { ok: false, outcome: apiFailure(r.error, `Reading the ${k.what}`) };
  }
  const all = await api.get<Record<string, T[]>>(k.collection);
  if (!all.ok) return { ok: false, outcome: apiFailure(all.error, `Listing the ${k.whats}`) };
  return { ok: true, remote: (all.body[k.listField] ?? []).find((p) => uidOfRemoteName(p.name) === uid) };
}

/** A DELETE where "already gone" is success. */
export async function deleteRemote(api: ApiClient, path: string, what: string): Promise<Outcome | undefined> {
  const r = await api.delete(path);
  if (r.ok || r.error.status === 404) return undefined;
  return apiFailure(r.error, `Deleting the ${what}`);
}
