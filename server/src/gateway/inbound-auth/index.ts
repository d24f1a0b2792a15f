// Inbound authentication of proxy traffic, per proxy and built once per config version: svc_api_key (client keys
// from the snapshot) or jwt (stored JWKS). Both data planes use it; authorization (which tools, which models) stays
// with the kind handler.
import type { ClientCredential, ProxyConfig } from '../../snapshot/snapshot.ts';
import type { Identity } from '../pipeline/types.ts';
import { JwtVerifier } from './jwt.ts';
import { authenticateKey, peekKey } from './svc-key.ts';

export { AuthMsg } from './messages.ts';

export type AuthOutcome =
  | { ok: true; identity: Identity }
  /** `reason` goes to the deny event (e.g. expired, claim_aud, unknown_key, pat_on_proxy); `message` to the client. */
  | { ok: false; status: 401; message: string; reason: string; detail?: string };

export interface Authenticator {
  authenticate(token: string | undefined, tokenHash: string | undefined): Promise<AuthOutcome>;
  /** Who the token claims to be, without verifying it: used only to look up bans before authentication. */
  peek(token: string | undefined, tokenHash: string | undefined): { consumerKey?: string; apiKeyKey?: string };
}

export function createAuthenticator(
  proxy: ProxyConfig, credentials: ReadonlyMap<string, ClientCredential>, nowMs: () => number,
): Authenticator {
  if (proxy.auth.mode === 'jwt') {
    const v = new JwtVerifier(proxy.auth, nowMs);
    return {
      // A PAT is never valid on a proxy URL, whatever the mode; say so instead of "invalid token".
      authenticate: async (t, h) => (h && credentials.get(h)?.isPat ? authenticateKey(proxy, credentials, h) : v.verify(t, h)),
      peek: (t, h) => v.peek(t, h),
    };
  }
  return {
    authenticate: async (_t, h) => authenticateKey(proxy, credentials, h),
    peek: (_t, h) => peekKey(credentials, h),
  };
}
