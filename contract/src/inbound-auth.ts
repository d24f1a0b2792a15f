// The inbound `auth` object shared by MCP and LLM proxies: how clients authenticate to a proxy. The server also checks
// a jwt-mode JWKS structurally on save (it needs a JOSE library; server/src/proxies/inbound-auth.ts).
import { z } from 'zod';

export const AUTH_MODES = ['svc_api_key', 'jwt'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export const inboundAuthSchema = z.object({
  mode: z.enum(AUTH_MODES).default('svc_api_key').describe('svc_api_key: client keys minted by Tollgate; jwt: JWTs checked against jwksJson.'),
  issuer: z.string().min(1).optional().describe('Required iss claim (jwt mode).'),
  audience: z.string().min(1).optional().describe('Required aud claim (jwt mode).'),
  jwksJson: z.string().optional().describe('A JWKS document, JSON-encoded as a string (jwt mode).'),
  clockSkewS: z.number().int().min(0).max(3600).default(30).describe('Clock-skew tolerance in seconds.'),
}).describe('How clients authenticate to the proxy.');
export type InboundAuthInput = z.input<typeof inboundAuthSchema>;
