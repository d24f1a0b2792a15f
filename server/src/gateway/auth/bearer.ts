// Reads the inbound credential of a proxy request. `Authorization: Bearer <token>` is the spec's channel; the LLM
// data plane also accepts providers' native headers and passes the value it found to authenticate().
import type { IncomingHttpHeaders } from 'node:http';

export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const h = headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(h);
  return m ? m[1] : undefined;
}
