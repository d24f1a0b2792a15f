// Upstream auth of an MCP server (Tollgate -> MCP): `authToken` is required if and only if `authType` is bearer.
// Pure decisions here; sealing happens in the caller, which knows the server id (the AAD of the envelope).
import { HttpError } from '../http/errors.ts';
import type { AuthType } from './records.ts';

export const Reasons = {
  tokenRequired: 'authToken: is required when authType is bearer',
  tokenNotAllowed: 'authToken: must not be set unless authType is bearer',
} as const;

/** "" and null mean "no token given" (clients that serialise unset fields as empty strings). */
function given(token: string | null | undefined): token is string {
  return typeof token === 'string' && token.length > 0;
}

/** For a create: the token to seal, or null for authType none. */
export function createUpstreamAuth(authType: AuthType, authToken: string | null | undefined): string | null {
  if (authType === 'bearer') {
    if (!given(authToken)) throw new HttpError(400, Reasons.tokenRequired);
    return authToken;
  }
  if (given(authToken)) throw new HttpError(400, Reasons.tokenNotAllowed);
  return null;
}

export type TokenChange =
  | { kind: 'keep' } // leave the stored envelope as it is
  | { kind: 'clear' } // authType became none
  | { kind: 'set'; token: string }; // a new token to seal

/** For a patch: the resulting authType and what to do with the stored token. */
export function patchUpstreamAuth(
  current: { authType: AuthType; hasToken: boolean },
  patch: { authType?: AuthType; authToken?: string | null },
): { authType: AuthType; token: TokenChange } {
  const authType = patch.authType ?? current.authType;
  if (authType === 'none') {
    if (given(patch.authToken)) throw new HttpError(400, Reasons.tokenNotAllowed);
    return { authType, token: current.hasToken ? { kind: 'clear' } : { kind: 'keep' } };
  }
  if (given(patch.authToken)) return { authType, token: { kind: 'set', token: patch.authToken } };
  if (!current.hasToken) throw new HttpError(400, Reasons.tokenRequired);
  return { authType, token: { kind: 'keep' } };
}
