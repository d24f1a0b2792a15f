// User-facing messages of gateway authentication failures (bodies are `{ "error": <message> }`).
export const AuthMsg = {
  missing: 'Authentication required',
  invalidKey: 'Invalid API key',
  patOnProxy: 'Personal access tokens are not accepted on proxy URLs; use a client API key',
  invalidToken: 'Invalid token',
} as const;

/**
 * A jwt-mode proxy stored before audience and issuer were required (contract/src/inbound-auth.ts) accepts no token:
 * its owner must pin them, and the caller is told so instead of a bare "Invalid token".
 */
export function jwtPinsMissing(missing: readonly string[]): string {
  return `This proxy's JWT authentication requires an audience and an issuer, and it has no ${missing.join(' and no ')}; update the proxy`;
}
