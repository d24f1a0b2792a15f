// Inbound authentication of proxy traffic, per proxy and built once per config of that proxy: svc_api_key (client
// keys from the gateway's current snapshot) or jwt (stored JWKS). Both data planes use it; authorization (which tools, which models) stays
// with the kind handler.
import type { ClientCredential, ProxyConfig } from '../../snapshot/snapshot.ts';
import type { Authenticator } from './types.ts';
import { JwtVerifier } from './jwt.ts';
import { authenticateKey, peekKey } from './svc-key.ts';

export { AuthMsg } from './messages.ts';
export type { AuthOutcome, Authenticator, Identity } from './types.ts';

export function createAuthenticator(
  proxy: ProxyConfig, credentials: () => ReadonlyMap<string, ClientCredential>, nowMs: () => number,
): Authenticator {
  if (proxy.auth.mode === 'jwt') {
    const v = new JwtVerifier(proxy.auth, nowMs);
    return {
      // A PAT is never valid on a proxy URL, whatever the mode; say so instead of "invalid token".
      authenticate: async (t, h) => (h && credentials().get(h)?.isPat ? authenticateKey(proxy, credentials(), h) : v.verify(t, h)),
      peek: (t, h) => v.peek(t, h),
    };
  }
  return {
    authenticate: async (_t, h) => authenticateKey(proxy, credentials(), h),
    peek: (_t, h) => peekKey(credentials(), h),
  };
}
