// The dashboard session cookie: HttpOnly (no script access), SameSite=Strict (never sent on cross-site requests),
// Path=/, Max-Age = the session lifetime, and Secure whenever the browser reached us over TLS (http/cookies.ts
// isSecureRequest). Over TLS its name carries the `__Host-` prefix: a browser keeps such a cookie only when it is
// Secure, on Path=/ and without Domain, so no other host of the site (a tenant's proxy host, a sibling subdomain, a
// plain-http page) can set or overwrite it. The one TLS test decides both, because `__Host-` without Secure is a
// cookie the browser drops.
import type { IncomingMessage } from 'node:http';
import { cookies, isSecureRequest } from '../http/cookies.ts';

export const SESSION_COOKIE = 'tollgate_session';
export const HOST_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/** The name a request's session cookie has: only this one is set and read for that request. */
export function sessionCookieName(secure: boolean): string {
  return secure ? HOST_SESSION_COOKIE : SESSION_COOKIE;
}

/** More distinct values of the session cookie than a browser with a planted one sends: such a request is no session. */
export const MAX_SESSION_COOKIES = 4;

/** The session tokens a request presents under its cookie name: distinct and non-empty, in the order sent. */
export function sessionTokens(req: IncomingMessage): string[] {
  return [...new Set(cookies(req, sessionCookieName(isSecureRequest(req))))].filter((v) => v !== '');
}

export function sessionCookie(token: string, maxAgeS: number, secure: boolean): string {
  const parts = [`${sessionCookieName(secure)}=${token}`, 'HttpOnly', 'SameSite=Strict', 'Path=/', `Max-Age=${Math.max(0, Math.floor(maxAgeS))}`];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', 0, secure);
}
