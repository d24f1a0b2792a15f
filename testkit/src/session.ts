// Test helpers for the dashboard session channel (used by the route tests; not imported by production code).
import assert from 'node:assert/strict';
import { TEST_PASSWORD, type HttpResult, type TestApp } from './harness.ts';
import { SESSION_COOKIE } from '@tollgate/server/src/identity/session-cookie.ts';
import { base32Decode, totpAt } from '@tollgate/server/src/identity/totp.ts';

export interface SignedIn {
  /** `tollgate_session=<token>` (`__Host-tollgate_session=…` over TLS), ready for a Cookie header. */
  cookie: string;
  token: string;
  res: HttpResult;
}

/** The session cookie a response set, under either name (session-cookie.ts sessionCookieName). */
function sessionSetCookie(res: HttpResult): { name: string; token: string } | undefined {
  for (const c of res.headers.getSetCookie()) {
    const m = new RegExp(`^((?:__Host-)?${SESSION_COOKIE})=([^;]*)`).exec(c);
    if (m) return { name: m[1]!, token: m[2]! };
  }
  return undefined;
}

export function sessionToken(res: HttpResult): string | undefined {
  return sessionSetCookie(res)?.token;
}

export async function signIn(t: TestApp, email: string, password = TEST_PASSWORD, headers: Record<string, string> = {}): Promise<SignedIn> {
  // eslint-disable-next-line no-restricted-syntax -- the Set-Cookie header of the answer is what sign-in is for
  const res = await t.request('POST', '/api/auth/login', { body: { email, password }, headers });
  assert.equal(res.status, 200, `sign-in failed: ${res.text}`);
  const set = sessionSetCookie(res);
  assert.ok(set?.token, 'sign-in set no session cookie');
  return { cookie: `${set.name}=${set.token}`, token: set.token, res };
}

/** Options for t.request with the session cookie (and extra headers). */
export function withCookie(cookie: string, extra: { body?: unknown; headers?: Record<string, string> } = {}) {
  return { body: extra.body, headers: { cookie, ...extra.headers } };
}

export function codeAt(secretBase32: string, unixS: number): string {
  return totpAt(base32Decode(secretBase32), unixS);
}
