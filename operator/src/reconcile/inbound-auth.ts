// The inbound `auth` object of both proxy kinds: the spec's (defaults filled by the contract) against the stored one.
import { inboundAuthSchema } from '@tollgate/contract';
import { sameValue } from './compare.ts';

export type InboundAuth = ReturnType<typeof inboundAuthSchema.parse>;

/** What the API is sent: null means client API keys (svc_api_key). */
export const desiredAuth = (spec: unknown): InboundAuth | null => (spec ? inboundAuthSchema.parse(spec) : null);

export function sameAuth(desired: InboundAuth | null, remote: unknown): boolean {
  // An absent auth and an explicit svc_api_key with default skew behave the same; the API may store either.
  const plain = (a: unknown) => (a && typeof a === 'object' && (a as { mode?: string }).mode !== 'jwt'
    ? { mode: 'svc_api_key', clockSkewS: (a as { clockSkewS?: number }).clockSkewS ?? 30 }
    : a ?? { mode: 'svc_api_key', clockSkewS: 30 });
  return sameValue(plain(desired), plain(remote));
}
