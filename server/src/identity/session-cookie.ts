// The dashboard session cookie: HttpOnly (no script access), SameSite=Strict (never sent on cross-site requests),
// Path=/, Max-Age = the session lifetime, and Secure whenever the browser reached us over TLS (directly or through a
// TLS-terminating proxy that sets X-Forwarded-Proto).
import type { IncomingMessage } from 'node:http';
import { SESSION_COOKIE } from '../auth/authenticate.ts';

export function isSecureRequest(req: IncomingMessage): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted === true) return true;
  const xfp = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(xfp) ? xfp[0] : xfp)?.split(',')[0]?.trim().toLowerCase();
  return first === 'https';
}

export function sessionCookie(token: string, maxAgeS: number, secure: boolean): string {
  const parts = [`${SESSION_COOKIE}=${token}`, 'HttpOnly', 'SameSite=Strict', 'Path=/', `Max-Age=${Math.max(0, Math.floor(maxAgeS))}`];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', 0, secure);
}
