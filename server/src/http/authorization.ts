// The two readings of an `Authorization: Bearer` header. They differ on purpose, hence two names:
// - the management API (spec: "a Bearer header wins and cookies are then ignored") treats ANY Authorization header as
//   a credential attempt: a header that is not a Bearer reads as '' (which then fails as an unknown PAT), and the
//   token is the rest of the header, inner spaces kept;
// - the proxy data planes accept only a well-formed single-token Bearer; anything else reads as absent so that the
//   LLM data plane can fall back to a provider's native key header.
import type { IncomingHttpHeaders } from 'node:http';

/** undefined: no Authorization header; '' : a header that is not `Bearer <token>`; else the (trimmed) token. */
export function bearerTokenOrEmpty(headers: IncomingHttpHeaders): string | undefined {
  const h = headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m ? m[1]!.trim() : '';
}

/** The token of `Bearer <token>` (one token, no inner whitespace); undefined for a missing or any other header. */
export function strictBearerToken(headers: IncomingHttpHeaders): string | undefined {
  const h = headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(h);
  return m ? m[1] : undefined;
}
