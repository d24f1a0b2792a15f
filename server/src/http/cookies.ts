// Cookies as plain HTTP: reading one from the request's Cookie header, and whether the browser reached us over TLS
// (directly or through a TLS-terminating proxy that sets X-Forwarded-Proto), which decides a cookie's Secure flag.
import type { IncomingMessage } from 'node:http';

/**
 * Every value sent under `name`, in the order the browser sent them. A name can come more than once: a browser sends
 * each matching cookie (another host of the same site may have set one for the parent domain, or for a longer path,
 * which then comes first), so the caller must decide which one it trusts rather than take the first.
 */
export function cookies(req: IncomingMessage, name: string): string[] {
  const raw = req.headers.cookie;
  if (!raw) return [];
  const out: string[] = [];
  for (const part of raw.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) out.push(safeDecode(part.slice(i + 1).trim()));
  }
  return out;
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
