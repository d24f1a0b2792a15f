// The inbound `auth` object shared by MCP and LLM proxies: how clients authenticate to a proxy. The server also checks
// a jwt-mode JWKS structurally on save (it needs a JOSE library; server/src/proxies/inbound-auth.ts).
import { z } from 'zod';

export const AUTH_MODES = ['svc_api_key', 'jwt'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

/**
 * The claims a jwt-mode proxy pins, in the order a refusal names them. A JWKS alone proves only who signed a token:
 * the keys of a shared identity provider (any Google account) sign tokens for every application it serves, so
 * without an audience and an issuer any of them would open the proxy.
 */
export const JWT_PINNED_CLAIMS = ['audience', 'issuer'] as const;
export type JwtPinnedClaim = (typeof JWT_PINNED_CLAIMS)[number];

export const JWT_PIN_REQUIRED = 'is required when mode is jwt';

/** The pinned claims a jwt-mode auth object lacks (none in svc_api_key mode). */
export function missingJwtPins(auth: { mode?: string; issuer?: string | null; audience?: string | null }): JwtPinnedClaim[] {
  if (auth.mode !== 'jwt') return [];
  return JWT_PINNED_CLAIMS.filter((c) => !auth[c]);
}

export const inboundAuthSchema = z.object({
  mode: z.enum(AUTH_MODES).default('svc_api_key').describe('svc_api_key: client keys minted by Tollgate; jwt: JWTs checked against jwksJson.'),
  issuer: z.string().min(1).optional().describe('The iss claim every token must carry; required in jwt mode.'),
  audience: z.string().min(1).optional().describe('A value the aud claim of every token must hold; required in jwt mode.'),
  jwksJson: z.string().optional().describe('A JWKS document, JSON-encoded as a string (jwt mode).'),
  clockSkewS: z.number().int().min(0).max(3600).default(30).describe('Clock-skew tolerance in seconds.'),
}).superRefine((auth, ctx) => {
  for (const claim of missingJwtPins(auth)) ctx.addIssue({ code: 'custom', path: [claim], message: JWT_PIN_REQUIRED });
}).describe('How clients authenticate to the proxy.');
export type InboundAuthInput = z.input<typeof inboundAuthSchema>;
