// The dashboard session cookie: HttpOnly (no script access), SameSite=Strict (never sent on cross-site requests),
// Path=/, Max-Age = the session lifetime, and Secure whenever the browser reached us over TLS (http/cookies.ts
// isSecureRequest).

export const SESSION_COOKIE = 'tollgate_session';

export function sessionCookie(token: string, maxAgeS: number, secure: boolean): string {
  const parts = [`${SESSION_COOKIE}=${token}`, 'HttpOnly', 'SameSite=Strict', 'Path=/', `Max-Age=${Math.max(0, Math.floor(maxAgeS))}`];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', 0, secure);
}
