import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sha256Hex } from '../../crypto/tokens.ts';
import { sessionToken, signIn, withCookie } from '@tollgate/testkit/session.ts';
import { SESSION_TTL_S } from '../../identity/sessions.ts';
import { createUser } from '../../identity/users.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '@tollgate/testkit/harness.ts';

const SESSION_ONLY = { error: 'This endpoint does not accept personal access tokens. Use the dashboard session.' };
const NOT_AUTHENTICATED = { error: 'Not authenticated' };
const LOGIN_FAILED = { error: 'Invalid email or password' };

let t: TestApp;
before(async () => { t = await startTestApp(); });
after(async () => { await t.close(); });

function cookieAttributes(setCookie: string): Map<string, string> {
  const [, ...attrs] = setCookie.split(';').map((p) => p.trim());
  return new Map(attrs.map((a) => {
    const i = a.indexOf('=');
    return i < 0 ? [a.toLowerCase(), ''] : [a.slice(0, i).toLowerCase(), a.slice(i + 1)];
  }));
}

test('sign-in sets an HttpOnly SameSite=Strict session cookie, stored only as a hash', async () => {
  const u = await t.createUser();
  const { res, token } = await signIn(t, u.email);
  assert.deepEqual(res.body.user, { id: u.userId, email: u.email, name: null });
  assert.equal(res.body.mfaRequired, false);
  const [setCookie] = res.headers.getSetCookie();
  const attrs = cookieAttributes(setCookie!);
  assert.ok(setCookie!.startsWith('tollgate_session='));
  assert.ok(attrs.has('httponly'));
  assert.equal(attrs.get('samesite'), 'Strict');
  assert.equal(attrs.get('path'), '/');
  assert.equal(attrs.get('max-age'), String(SESSION_TTL_S));
  assert.equal(attrs.has('secure'), false, 'plain-http request: no Secure flag');
  assert.ok(token.length >= 40);
  const rows = await t.app.services.db.query<{ id_hash: string; mfa_passed: boolean }>('SELECT id_hash, mfa_passed FROM sessions WHERE user_id = $1', [u.userId]);
  assert.deepEqual(rows.map((r) => r.id_hash), [sha256Hex(token)]);
  assert.equal(JSON.stringify(rows).includes(token), false);
});

test('the cookie is Secure when the request came through TLS (X-Forwarded-Proto https)', async () => {
  const u = await t.createUser();
  const { res } = await signIn(t, u.email, TEST_PASSWORD, { 'x-forwarded-proto': 'https' });
  assert.ok(cookieAttributes(res.headers.getSetCookie()[0]!).has('secure'));
});

test('wrong password, unknown e-mail and a user without a password all get the same 401 and no cookie', async () => {
  const u = await t.createUser();
  const nopw = `nopw-${randomUUID()}@example.test`;
  await t.app.services.db.tx((q) => createUser(q, { email: nopw }, 1));
  for (const body of [{ email: u.email, password: 'wrong password' }, { email: `nobody-${randomUUID()}@example.test`, password: TEST_PASSWORD }, { email: nopw, password: TEST_PASSWORD }]) {
    const r = await t.request('POST', '/api/auth/login', { body });
    assert.equal(r.status, 401, body.email);
    assert.deepEqual(r.body, LOGIN_FAILED);
    assert.equal(sessionToken(r), undefined);
  }
});

test('the e-mail is matched case-insensitively', async () => {
  const u = await t.createUser();
  const { res } = await signIn(t, `  ${u.email.toUpperCase()} `);
  assert.equal(res.body.user.id, u.userId);
});

test('a malformed sign-in body is a 400 and creates no session', async () => {
  const u = await t.createUser();
  const missing = await t.request('POST', '/api/auth/login', { body: { email: u.email } });
  assert.equal(missing.status, 400);
  assert.match(missing.body.error, /^password: /);
  const notJson = await t.request('POST', '/api/auth/login', { raw: 'email=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(notJson.status, 400);
  assert.deepEqual(notJson.body, { error: 'Invalid JSON body' });
  const rows = await t.app.services.db.query('SELECT 1 FROM sessions WHERE user_id = $1', [u.userId]);
  assert.equal(rows.length, 0);
});

test('GET /api/auth/session describes the current session', async () => {
  const u = await t.createUser();
  const { cookie } = await signIn(t, u.email);
  const r = await t.request('GET', '/api/auth/session', withCookie(cookie));
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.user, { id: u.userId, email: u.email, name: null });
  assert.equal(r.body.twoFactorEnabled, false);
  assert.equal(r.body.expiresAt - r.body.createdAt, SESSION_TTL_S);
  const none = await t.request('GET', '/api/auth/session');
  assert.equal(none.status, 401);
  assert.deepEqual(none.body, NOT_AUTHENTICATED);
});

test('logout invalidates the session at once and clears the cookie', async () => {
  const u = await t.createUser();
  const { cookie } = await signIn(t, u.email);
  const out = await t.request('POST', '/api/auth/logout', withCookie(cookie));
  assert.equal(out.status, 200);
  assert.deepEqual(out.body, { loggedOut: true });
  const cleared = out.headers.getSetCookie()[0]!;
  assert.ok(cleared.startsWith('tollgate_session=;'));
  assert.equal(cookieAttributes(cleared).get('max-age'), '0');
  for (const [method, path] of [['GET', '/api/profile'], ['GET', '/api/auth/session'], ['POST', '/api/auth/logout'], ['GET', '/api/profile/token']]) {
    const r = await t.request(method!, path!, withCookie(cookie));
    assert.equal(r.status, 401, `${method} ${path}`);
    assert.deepEqual(r.body, NOT_AUTHENTICATED);
  }
});

test('signing in again replaces the session the browser already had', async () => {
  const u = await t.createUser();
  const first = await signIn(t, u.email);
  const second = await signIn(t, u.email, TEST_PASSWORD, { cookie: first.cookie });
  assert.notEqual(second.token, first.token);
  assert.equal((await t.request('GET', '/api/profile', withCookie(first.cookie))).status, 401);
  assert.equal((await t.request('GET', '/api/profile', withCookie(second.cookie))).status, 200);
});

test('an expired session is not accepted', async () => {
  const u = await t.createUser();
  const { cookie, token } = await signIn(t, u.email);
  await t.app.services.db.query('UPDATE sessions SET expires_at = 1 WHERE id_hash = $1', [sha256Hex(token)]);
  const r = await t.request('GET', '/api/profile', withCookie(cookie));
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, NOT_AUTHENTICATED);
});

test('every /api/auth/* route refuses a PAT with 403; an unknown Bearer there is a 401', async () => {
  const u = await t.createUser();
  const { cookie } = await signIn(t, u.email);
  const routes: Array<[string, string, unknown]> = [
    ['POST', '/api/auth/login', { email: u.email, password: TEST_PASSWORD }],
    ['POST', '/api/auth/logout', undefined],
    ['GET', '/api/auth/session', undefined],
  ];
  for (const [method, path, body] of routes) {
    const r = await t.request(method, path, { token: u.pat, body, headers: { cookie } });
    assert.equal(r.status, 403, `${method} ${path}`);
    assert.deepEqual(r.body, SESSION_ONLY);
    const bad = await t.request(method, path, { token: 'svc_pat_unknown', body });
    assert.equal(bad.status, 401, `${method} ${path} with an unknown token`);
    assert.deepEqual(bad.body, { error: 'Invalid personal access token' });
  }
  // The PAT did not log the session out, and the login with a PAT created no session.
  assert.equal((await t.request('GET', '/api/profile', withCookie(cookie))).status, 200);
  const rows = await t.app.services.db.query('SELECT 1 FROM sessions WHERE user_id = $1', [u.userId]);
  assert.equal(rows.length, 1);
});

test('origin check: a cookie request with a foreign Origin on an unsafe method gets 403 and changes nothing', async () => {
  const u = await t.createUser();
  const { cookie } = await signIn(t, u.email);
  const evil = { origin: 'https://evil.example' };
  const rotate = await t.request('POST', '/api/profile/token', withCookie(cookie, { headers: evil }));
  assert.equal(rotate.status, 403);
  assert.deepEqual(rotate.body, { error: 'Cross-origin request rejected' });
  assert.equal((await t.request('GET', '/api/profile', { token: u.pat })).status, 200, 'the PAT was not rotated');

  const logout = await t.request('POST', '/api/auth/logout', withCookie(cookie, { headers: evil }));
  assert.equal(logout.status, 403);
  assert.equal((await t.request('GET', '/api/profile', withCookie(cookie))).status, 200, 'the session is still valid');

  const login = await t.request('POST', '/api/auth/login', { body: { email: u.email, password: TEST_PASSWORD }, headers: evil });
  assert.equal(login.status, 403);
  assert.equal(sessionToken(login), undefined);

  // A safe method is not checked, and our own origin passes.
  assert.equal((await t.request('GET', '/api/profile', withCookie(cookie, { headers: evil }))).status, 200);
  const own = await t.request('POST', '/api/profile/token', withCookie(cookie, { headers: { origin: t.api } }));
  assert.equal(own.status, 200);
  assert.equal(own.body.rotated, true);
});

test('more than 10 failed sign-ins per 5 minutes for one e-mail get 429, even with the right password', async () => {
  const u = await t.createUser();
  for (let i = 0; i < 10; i++) {
    const r = await t.request('POST', '/api/auth/login', { body: { email: u.email, password: `wrong-${i}` } });
    assert.equal(r.status, 401);
  }
  const r = await t.request('POST', '/api/auth/login', { body: { email: u.email, password: TEST_PASSWORD } });
  assert.equal(r.status, 429);
  assert.ok(Number(r.headers.get('retry-after')) > 0);
  // Another account is not affected.
  const other = await t.createUser();
  await signIn(t, other.email);
});

test('a malformed or unknown session cookie is 401 Not authenticated, never a 500', async () => {
  for (const cookie of ['tollgate_session=%E0%A4%A', 'tollgate_session=', 'tollgate_session=nope', 'other=1; tollgate_session']) {
    const r = await t.request('GET', '/api/profile', { headers: { cookie } });
    assert.equal(r.status, 401, cookie);
    assert.deepEqual(r.body, NOT_AUTHENTICATED);
  }
  for (const body of [[], 'x', { email: 1, password: 2 }, { email: 'a@b', password: '' }]) {
    const r = await t.request('POST', '/api/auth/login', { body });
    assert.equal(r.status, 400, JSON.stringify(body));
  }
});

/** How many answers had each status. */
function statusCounts(results: Array<{ status: number }>): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

test('50 parallel wrong passwords for one e-mail: exactly 10 are checked (401), the other 40 get 429 unchecked', async () => {
  const u = await t.createUser();
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) =>
    t.request('POST', '/api/auth/login', { body: { email: u.email, password: `wrong-${i}` } })));
  // A 401 is a password that was verified and failed; a 429 was refused before any check.
  assert.deepEqual(statusCounts(results), { 401: 10, 429: 40 });
  for (const r of results.filter((x) => x.status === 429)) {
    assert.deepEqual(r.body, { error: 'Too many failed sign-in attempts. Try again later.' });
    assert.ok(Number(r.headers.get('retry-after')) > 0);
  }
  const right = await t.request('POST', '/api/auth/login', { body: { email: u.email, password: TEST_PASSWORD } });
  assert.equal(right.status, 429, 'the window is spent, even for the right password');
});

test('a successful sign-in gives its attempt back: the window counts failed password checks only', async () => {
  const u = await t.createUser();
  const login = (password: string) => t.request('POST', '/api/auth/login', { body: { email: u.email, password } });
  for (let i = 0; i < 9; i++) assert.equal((await login(`wrong-${i}`)).status, 401);
  assert.equal((await login(TEST_PASSWORD)).status, 200, 'under the limit the right password signs in');
  assert.equal((await login('wrong-9')).status, 401, 'the success did not use up the tenth failure');
  assert.equal((await login(TEST_PASSWORD)).status, 429, 'ten failures: the window is closed');
});

test('over TLS the cookie is __Host-tollgate_session (Secure, Path=/, no Domain), and only that name is read there', async () => {
  const u = await t.createUser();
  const tls = { 'x-forwarded-proto': 'https' };
  const { res, token } = await signIn(t, u.email, TEST_PASSWORD, tls);
  const setCookie = res.headers.getSetCookie()[0]!;
  assert.ok(setCookie.startsWith(`__Host-tollgate_session=${token};`), setCookie);
  const attrs = cookieAttributes(setCookie);
  assert.ok(attrs.has('secure'));
  assert.equal(attrs.get('path'), '/');
  assert.equal(attrs.has('domain'), false);

  const hostCookie = `__Host-tollgate_session=${token}`;
  assert.equal((await t.request('GET', '/api/profile', withCookie(hostCookie, { headers: tls }))).status, 200);
  // The unprefixed name is one any host of the site can set: over TLS it names no session, even a live one.
  const plainName = await t.request('GET', '/api/profile', withCookie(`tollgate_session=${token}`, { headers: tls }));
  assert.equal(plainName.status, 401);
  assert.deepEqual(plainName.body, NOT_AUTHENTICATED);
  // A browser never sends a Secure cookie over plain http, so plain http reads only the unprefixed name.
  assert.equal((await t.request('GET', '/api/profile', withCookie(hostCookie))).status, 401);

  const out = await t.request('POST', '/api/auth/logout', withCookie(hostCookie, { headers: tls }));
  assert.equal(out.status, 200);
  const cleared = out.headers.getSetCookie()[0]!;
  assert.ok(cleared.startsWith('__Host-tollgate_session=;'), cleared);
  assert.ok(cookieAttributes(cleared).has('secure'));
  assert.equal(cookieAttributes(cleared).get('max-age'), '0');
});

test('a planted session cookie sent before the real one does not win: an invalid one is skipped, a second live session is no session', async () => {
  const u = await t.createUser();
  const real = await signIn(t, u.email);
  const attacker = await t.createUser();
  const planted = await signIn(t, attacker.email);

  const garbageFirst = await t.request('GET', '/api/profile', { headers: { cookie: `tollgate_session=planted-garbage; ${real.cookie}` } });
  assert.equal(garbageFirst.status, 200, 'a planted value that names no session does not lock the user out');
  assert.equal(garbageFirst.body.email, u.email);

  for (const cookie of [`${planted.cookie}; ${real.cookie}`, `${real.cookie}; ${planted.cookie}`]) {
    const r = await t.request('GET', '/api/profile', { headers: { cookie } });
    assert.equal(r.status, 401, 'two live sessions are ambiguous: neither is used, whichever comes first');
    assert.deepEqual(r.body, NOT_AUTHENTICATED);
  }
  const tooMany = ['a', 'b', 'c', 'd'].map((v) => `tollgate_session=${v}`).join('; ');
  assert.equal((await t.request('GET', '/api/profile', { headers: { cookie: `${tooMany}; ${real.cookie}` } })).status, 401,
    'more than 4 values are no browser session');
});

test('signing in ends every session the request presented, so a planted live session cannot keep the user ambiguous', async () => {
  const u = await t.createUser();
  const old = await signIn(t, u.email);
  const attacker = await t.createUser();
  const planted = await signIn(t, attacker.email);
  const fresh = await signIn(t, u.email, TEST_PASSWORD, { cookie: `${planted.cookie}; ${old.cookie}` });
  assert.equal((await t.request('GET', '/api/profile', withCookie(planted.cookie))).status, 401, 'the planted session was ended');
  assert.equal((await t.request('GET', '/api/profile', withCookie(old.cookie))).status, 401, 'the old session was ended');
  // The browser still sends the planted cookie, now naming no session: the new one is the only live one.
  const r = await t.request('GET', '/api/profile', withCookie(`${planted.cookie}; ${fresh.cookie}`));
  assert.equal(r.status, 200);
  assert.equal(r.body.email, u.email);
});
