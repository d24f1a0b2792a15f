import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '@tollgate/testkit/clock.ts';
import { codeAt, signIn, withCookie, type SignedIn } from '@tollgate/testkit/session.ts';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';

const SESSION_ONLY = { error: 'This endpoint does not accept personal access tokens. Use the dashboard session.' };
const MFA_REQUIRED = { error: 'MFA required' };
const INVALID_CODE = { error: 'Invalid 2FA code' };

const clock = manualClock();
let t: TestApp;
before(async () => { t = await startTestApp({ clock }); });
after(async () => { await t.close(); });

/** A user with 2FA enabled through the API; returns the secret and the session that enabled it. */
async function userWith2fa(): Promise<{ u: TestUser; secret: string; session: SignedIn }> {
  const u = await t.createUser();
  const session = await signIn(t, u.email);
  const setup = await t.request('POST', '/api/2fa/setup', withCookie(session.cookie));
  assert.equal(setup.status, 200);
  const secret: string = setup.body.secret;
  const v = await t.request('POST', '/api/2fa/verify', withCookie(session.cookie, { body: { code: codeAt(secret, clock.unixS()) } }));
  assert.equal(v.status, 200, v.text);
  clock.advanceS(30); // the next code check needs a fresh time step (an accepted code cannot be replayed)
  return { u, secret, session };
}

test('every /api/2fa/* route refuses a PAT with 403 and needs a session', async () => {
  const u = await t.createUser();
  for (const path of ['/api/2fa/setup', '/api/2fa/verify', '/api/2fa/disable', '/api/2fa/challenge']) {
    const withPat = await t.request('POST', path, { token: u.pat, body: { code: '123456' } });
    assert.equal(withPat.status, 403, path);
    assert.deepEqual(withPat.body, SESSION_ONLY);
    const none = await t.request('POST', path, { body: { code: '123456' } });
    assert.equal(none.status, 401, path);
    assert.deepEqual(none.body, { error: 'Not authenticated' });
  }
  const [row] = await t.app.services.db.query<{ totp_secret_enc: string | null }>('SELECT totp_secret_enc FROM users WHERE id = $1', [u.userId]);
  assert.equal(row!.totp_secret_enc, null, 'the PAT did not start a setup');
});

test('setup returns a base32 secret and its otpauth URI; the secret is stored sealed', async () => {
  const u = await t.createUser();
  const { cookie } = await signIn(t, u.email);
  const r = await t.request('POST', '/api/2fa/setup', withCookie(cookie));
  assert.equal(r.status, 200);
  assert.match(r.body.secret, /^[A-Z2-7]{32}$/);
  const uri = new URL(r.body.otpauthUri);
  assert.equal(uri.protocol, 'otpauth:');
  assert.equal(uri.host, 'totp');
  assert.equal(decodeURIComponent(uri.pathname), `/Tollgate:${u.email}`);
  assert.equal(uri.searchParams.get('secret'), r.body.secret);
  const [row] = await t.app.services.db.query<{ totp_secret_enc: string; totp_enabled: boolean }>('SELECT totp_secret_enc, totp_enabled FROM users WHERE id = $1', [u.userId]);
  assert.equal(row!.totp_enabled, false, 'setup alone does not enable 2FA');
  assert.ok(!row!.totp_secret_enc.includes(r.body.secret));
  assert.equal(t.app.services.secrets.open(row!.totp_secret_enc, `totp:${u.userId}`), r.body.secret);
  // A second setup before verifying replaces the pending secret.
  const again = await t.request('POST', '/api/2fa/setup', withCookie(cookie));
  assert.notEqual(again.body.secret, r.body.secret);
});

test('wrong order of 2FA steps gets 409', async () => {
  const u = await t.createUser();
  const { cookie } = await signIn(t, u.email);
  const code = { body: { code: '123456' } };
  const verify = await t.request('POST', '/api/2fa/verify', withCookie(cookie, code));
  assert.equal(verify.status, 409);
  assert.deepEqual(verify.body, { error: '2FA setup has not been started' });
  for (const path of ['/api/2fa/disable', '/api/2fa/challenge']) {
    const r = await t.request('POST', path, withCookie(cookie, code));
    assert.equal(r.status, 409, path);
    assert.deepEqual(r.body, { error: '2FA is not enabled' });
  }
  const { session } = await userWith2fa();
  for (const path of ['/api/2fa/setup', '/api/2fa/verify']) {
    const r = await t.request('POST', path, withCookie(session.cookie, code));
    assert.equal(r.status, 409, path);
    assert.deepEqual(r.body, { error: '2FA is already enabled' });
  }
});

test('verify rejects a malformed or wrong code, then enables 2FA with the right one', async () => {
  const u = await t.createUser();
  const { cookie } = await signIn(t, u.email);
  const { body: { secret } } = await t.request('POST', '/api/2fa/setup', withCookie(cookie));
  const malformed = await t.request('POST', '/api/2fa/verify', withCookie(cookie, { body: { code: '12ab56' } }));
  assert.equal(malformed.status, 400);
  assert.deepEqual(malformed.body, { error: 'code: must be a 6-digit code' });
  const wrong = await t.request('POST', '/api/2fa/verify', withCookie(cookie, { body: { code: codeAt(secret, clock.unixS() - 300) } }));
  assert.equal(wrong.status, 400);
  assert.deepEqual(wrong.body, INVALID_CODE);
  const ok = await t.request('POST', '/api/2fa/verify', withCookie(cookie, { body: { code: codeAt(secret, clock.unixS()) } }));
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body, { enabled: true });
  // The session that verified has proven the second factor and keeps working.
  assert.equal((await t.request('GET', '/api/profile', withCookie(cookie))).status, 200);
  assert.equal((await t.request('GET', '/api/auth/session', withCookie(cookie))).body.twoFactorEnabled, true);
});

test('MFA gate: a new session of a 2FA user gets 401 MFA required until the challenge; PATs are not gated', async () => {
  const { u, secret } = await userWith2fa();
  const pending = await signIn(t, u.email);
  assert.equal(pending.res.body.mfaRequired, true);
  const [row] = await t.app.services.db.query<{ mfa_passed: boolean }>('SELECT mfa_passed FROM sessions WHERE user_id = $1 ORDER BY created_at DESC, id_hash LIMIT 1', [u.userId]);
  assert.equal(row!.mfa_passed, false);

  for (const [method, path] of [['GET', '/api/profile'], ['GET', '/api/profile/token'], ['POST', '/api/profile/token'], ['GET', '/api/auth/session'], ['POST', '/api/2fa/disable'], ['GET', '/api/health']]) {
    const r = await t.request(method!, path!, withCookie(pending.cookie, { body: method === 'POST' ? { code: '000000' } : undefined }));
    assert.equal(r.status, 401, `${method} ${path}`);
    assert.deepEqual(r.body, MFA_REQUIRED);
  }
  assert.equal((await t.request('GET', '/api/profile', { token: u.pat })).status, 200, 'the PAT is not subject to the gate');

  const wrong = await t.request('POST', '/api/2fa/challenge', withCookie(pending.cookie, { body: { code: codeAt(secret, clock.unixS() + 120) } }));
  assert.equal(wrong.status, 400);
  assert.deepEqual(wrong.body, INVALID_CODE);
  const ok = await t.request('POST', '/api/2fa/challenge', withCookie(pending.cookie, { body: { code: codeAt(secret, clock.unixS()) } }));
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body, { mfaPassed: true });
  assert.equal((await t.request('GET', '/api/profile', withCookie(pending.cookie))).status, 200);
});

test('a pending session may log out', async () => {
  const { u } = await userWith2fa();
  const pending = await signIn(t, u.email);
  const out = await t.request('POST', '/api/auth/logout', withCookie(pending.cookie));
  assert.equal(out.status, 200);
  const r = await t.request('POST', '/api/2fa/challenge', withCookie(pending.cookie, { body: { code: '000000' } }));
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, { error: 'Not authenticated' });
});

test('an accepted code cannot be replayed within its validity window', async () => {
  const { u, secret } = await userWith2fa();
  const a = await signIn(t, u.email);
  const b = await signIn(t, u.email);
  const code = codeAt(secret, clock.unixS());
  assert.equal((await t.request('POST', '/api/2fa/challenge', withCookie(a.cookie, { body: { code } }))).status, 200);
  const replay = await t.request('POST', '/api/2fa/challenge', withCookie(b.cookie, { body: { code } }));
  assert.equal(replay.status, 400);
  assert.deepEqual(replay.body, INVALID_CODE);
  clock.advanceS(30);
  assert.equal((await t.request('POST', '/api/2fa/challenge', withCookie(b.cookie, { body: { code: codeAt(secret, clock.unixS()) } }))).status, 200);
});

test('sessions opened before 2FA was enabled must pass the challenge afterwards', async () => {
  const u = await t.createUser();
  const other = await signIn(t, u.email);
  const enabling = await signIn(t, u.email);
  const { body: { secret } } = await t.request('POST', '/api/2fa/setup', withCookie(enabling.cookie));
  await t.request('POST', '/api/2fa/verify', withCookie(enabling.cookie, { body: { code: codeAt(secret, clock.unixS()) } }));
  const r = await t.request('GET', '/api/profile', withCookie(other.cookie));
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, MFA_REQUIRED);
});

test('disable needs a valid code, then sign-in no longer asks for the second factor', async () => {
  const { u, secret, session } = await userWith2fa();
  const wrong = await t.request('POST', '/api/2fa/disable', withCookie(session.cookie, { body: { code: codeAt(secret, clock.unixS() - 600) } }));
  assert.equal(wrong.status, 400);
  assert.deepEqual(wrong.body, INVALID_CODE);
  const ok = await t.request('POST', '/api/2fa/disable', withCookie(session.cookie, { body: { code: codeAt(secret, clock.unixS()) } }));
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body, { enabled: false });
  const [row] = await t.app.services.db.query<{ totp_secret_enc: string | null; totp_enabled: boolean }>('SELECT totp_secret_enc, totp_enabled FROM users WHERE id = $1', [u.userId]);
  assert.deepEqual(row, { totp_secret_enc: null, totp_enabled: false });
  const again = await signIn(t, u.email);
  assert.equal(again.res.body.mfaRequired, false);
  assert.equal((await t.request('GET', '/api/profile', withCookie(again.cookie))).status, 200);
  const disableAgain = await t.request('POST', '/api/2fa/disable', withCookie(again.cookie, { body: { code: '123456' } }));
  assert.equal(disableAgain.status, 409);
  assert.deepEqual(disableAgain.body, { error: '2FA is not enabled' });
});

test('more than 10 challenge attempts per 5 minutes per user get 429, even with the right code', async () => {
  const { u, secret } = await userWith2fa();
  const pending = await signIn(t, u.email);
  for (let i = 0; i < 10; i++) {
    const r = await t.request('POST', '/api/2fa/challenge', withCookie(pending.cookie, { body: { code: codeAt(secret, clock.unixS() + 3600 + i * 30) } }));
    assert.equal(r.status, 400, `attempt ${i + 1}`);
  }
  const limited = await t.request('POST', '/api/2fa/challenge', withCookie(pending.cookie, { body: { code: codeAt(secret, clock.unixS()) } }));
  assert.equal(limited.status, 429);
  assert.equal(typeof limited.body.error, 'string');
  const retryAfter = Number(limited.headers.get('retry-after'));
  assert.ok(retryAfter > 0 && retryAfter <= 300, `Retry-After ${retryAfter}`);
  // The limit is per user, not per session: a fresh session of the same user is limited too.
  const fresh = await signIn(t, u.email);
  assert.equal((await t.request('POST', '/api/2fa/challenge', withCookie(fresh.cookie, { body: { code: codeAt(secret, clock.unixS()) } }))).status, 429);
  assert.equal((await t.request('GET', '/api/profile', withCookie(pending.cookie))).status, 401, 'still pending');
  // Another user is not affected.
  const other = await userWith2fa();
  const otherPending = await signIn(t, other.u.email);
  const r = await t.request('POST', '/api/2fa/challenge', withCookie(otherPending.cookie, { body: { code: codeAt(other.secret, clock.unixS()) } }));
  assert.equal(r.status, 200);
});

test('verify and disable code checks are limited too (10 per 5 minutes per user, counted apart from the challenge)', async () => {
  const u = await t.createUser();
  const { cookie } = await signIn(t, u.email);
  const { body: { secret } } = await t.request('POST', '/api/2fa/setup', withCookie(cookie));
  for (let i = 0; i < 10; i++) {
    const r = await t.request('POST', '/api/2fa/verify', withCookie(cookie, { body: { code: codeAt(secret, clock.unixS() + 3600 + i * 30) } }));
    assert.equal(r.status, 400, `attempt ${i + 1}`);
  }
  const limited = await t.request('POST', '/api/2fa/verify', withCookie(cookie, { body: { code: codeAt(secret, clock.unixS()) } }));
  assert.equal(limited.status, 429);
  const [row] = await t.app.services.db.query<{ totp_enabled: boolean }>('SELECT totp_enabled FROM users WHERE id = $1', [u.userId]);
  assert.equal(row!.totp_enabled, false);
});
