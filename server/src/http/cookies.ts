// Cookies as plain HTTP: reading one from the request's Cookie header, and whether the browser reached us over TLS
// (directly or through a TLS-terminating proxy that sets X-Forwarded-Proto), which decides a cookie's Secure flag.
import type { IncomingMessage } from 'node:http';

export function cookie(req: IncomingMessage, name: string): string | undefined {
  const raw = req.headers.cookie;
  if (!raw) return undefined;
  for (const part of raw.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return safeDecode(part.slice(i + 1).trim());
  }
  return undefined;
}

/** A malformed %-escape in a cookie is the client's problem: keep the raw text (it then matches no session). */
function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

export function isSecureRequest(req: IncomingMessage): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted === true) return true;
  const xfp = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(xfp) ? xfp[0] : xfp)?.split(',')[0]?.trim().toLowerCase();
  return first === 'https';
}
