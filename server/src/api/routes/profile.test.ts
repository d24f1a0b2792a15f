import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { newClientKey, sha256Hex } from '../../crypto/tokens.ts';
import { signIn, withCookie } from '@tollgate/testkit/session.ts';
import { createUser } from '../../identity/users.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '@tollgate/testkit/harness.ts';

const SESSION_ONLY = 'This endpoint does not accept personal access tokens. Use the dashboard session.';
const INVALID_PAT = { error: 'Invalid personal access token' };

let t: TestApp;
before(async () => { t = await startTestApp(); });
after(async () => { await t.close(); });

test('GET /api/profile returns the profile record to a PAT', async () => {
  const u = await t.createUser();
  const r = await t.request('GET', '/api/profile', { token: u.pat });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, {
    name: null, email: u.email, consumerId: u.consumerId, consumerUsername: `user-${u.userId}`, tags: ['private:permissions:user'],
  });
});

test('GET /api/profile returns the same record to a dashboard session, with the name when set', async () => {
  const email = `named-${randomUUID()}@example.test`;
  await t.app.services.db.tx((q) => createUser(q, { email, name: 'Ada Lovelace', password: TEST_PASSWORD }, 1));
  const { cookie } = await signIn(t, email);
  const r = await t.request('GET', '/api/profile', withCookie(cookie));
  assert.equal(r.status, 200);
  assert.equal(r.body.name, 'Ada Lovelace');
  assert.equal(r.body.email, email);
  assert.deepEqual(r.body.tags, ['private:permissions:user']);
});

test('GET /api/profile without a credential returns 401 Not authenticated', async () => {
  const r = await t.request('GET', '/api/profile');
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, { error: 'Not authenticated' });
});

test('GET and POST /api/profile/token refuse a PAT with 403 and the PAT keeps working', async () => {
  const u = await t.createUser();
  for (const method of ['GET', 'POST']) {
    const r = await t.request(method, '/api/profile/token', { token: u.pat });
    assert.equal(r.status, 403, method);
    assert.deepEqual(r.body, { error: SESSION_ONLY });
  }
  assert.equal((await t.request('GET', '/api/profile', { token: u.pat })).status, 200);
});

test('rotation flow: a session issues a new PAT and the old one returns 401 at once, on the API and the gateway', async () => {
  const u = await t.createUser();
  const { cookie } = await signIn(t, u.email);
  assert.deepEqual((await t.request('GET', '/api/profile/token', withCookie(cookie))).body, { hasToken: true });

  const first = await t.request('POST', '/api/profile/token', withCookie(cookie));
  assert.equal(first.status, 200);
  assert.equal(first.body.rotated, true);
  assert.match(first.body.token, /^svc_pat_[A-Za-z0-9_-]{20,}$/);
  assert.deepEqual(Object.keys(first.body).sort(), ['rotated', 'token']);

  const old = await t.request('GET', '/api/profile', { token: u.pat });
  assert.equal(old.status, 401);
  assert.deepEqual(old.body, INVALID_PAT);
  assert.equal((await t.request('GET', '/api/profile', { token: first.body.token })).status, 200);

  // The gateway's in-memory credential table already holds the new PAT and not the old one.
  const creds = t.app.gateway!.store.current.credentialsByHash;
  assert.equal(creds.has(sha256Hex(u.pat)), false);
  assert.equal(creds.get(sha256Hex(first.body.token))?.isPat, true);

  const second = await t.request('POST', '/api/profile/token', withCookie(cookie));
  assert.equal(second.body.rotated, true);
  assert.equal((await t.request('GET', '/api/profile', { token: first.body.token })).status, 401);
  assert.equal((await t.request('GET', '/api/profile', { token: second.body.token })).status, 200);
  // Exactly one PAT per user, stored only as a hash.
  const rows = await t.app.services.db.query<{ key_hash: string }>('SELECT key_hash FROM credentials WHERE consumer_id = $1 AND is_pat', [u.consumerId]);
  assert.deepEqual(rows.map((r) => r.key_hash), [sha256Hex(second.body.token)]);
});

test('a user without a PAT sees hasToken false, and the first issue is not a rotation', async () => {
  const email = `nopat-${randomUUID()}@example.test`;
  await t.app.services.db.tx((q) => createUser(q, { email, password: TEST_PASSWORD }, 1));
  const { cookie } = await signIn(t, email);
  assert.deepEqual((await t.request('GET', '/api/profile/token', withCookie(cookie))).body, { hasToken: false });
  const r = await t.request('POST', '/api/profile/token', withCookie(cookie));
  assert.equal(r.status, 200);
  assert.equal(r.body.rotated, false);
  assert.deepEqual((await t.request('GET', '/api/profile/token', withCookie(cookie))).body, { hasToken: true });
  assert.equal((await t.request('GET', '/api/profile', { token: r.body.token })).body.email, email);
});

test('Bearer beats cookie: an invalid Bearer with a valid session cookie gets 401 Invalid personal access token', async () => {
  const u = await t.createUser();
  const { cookie } = await signIn(t, u.email);
  const r = await t.request('GET', '/api/profile', { token: 'svc_pat_not-a-real-token', headers: { cookie } });
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, INVALID_PAT);
  // A non-Bearer Authorization header is an invalid Bearer too, not a reason to fall back to the cookie.
  const basic = await t.request('GET', '/api/profile', { headers: { cookie, authorization: 'Basic dXNlcjpwdw==' } });
  assert.equal(basic.status, 401);
});

test('Bearer beats cookie: a valid PAT with another user\'s cookie acts as the PAT\'s user', async () => {
  const a = await t.createUser();
  const b = await t.createUser();
  const { cookie } = await signIn(t, b.email);
  const r = await t.request('GET', '/api/profile', { token: a.pat, headers: { cookie } });
  assert.equal(r.status, 200);
  assert.equal(r.body.email, a.email);
});

test('a client API key is never valid on /api/*', async () => {
  const u = await t.createUser();
  const key = newClientKey();
  await t.app.services.db.query(
    'INSERT INTO credentials (id, consumer_id, key_hash, key_prefix, tags, is_pat, created_at) VALUES ($1, $2, $3, $4, $5, false, 1)',
    [randomUUID(), u.consumerId, sha256Hex(key), key.slice(0, 6), ['name:client']],
  );
  const r = await t.request('GET', '/api/profile', { token: key });
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, INVALID_PAT);
});

test('every PAT request is recorded as an api_request audit event with the user, method, path and status', async () => {
  const u = await t.createUser();
  await t.request('GET', '/api/profile', { token: u.pat });
  await t.request('POST', '/api/profile/token', { token: u.pat }); // refused with 403, still recorded
  await t.request('GET', '/api/auth/session', { token: u.pat });
  const { cookie } = await signIn(t, u.email);
  await t.request('GET', '/api/profile', withCookie(cookie)); // a session request is not a PAT request
  await t.app.services.audit.flush();
  const rows = await t.app.services.db.query<{ user_id: string; event_type: string; details: { method: string; path: string; status: number; credential_id: string } }>(
    `SELECT user_id, event_type, details FROM audit_events WHERE user_id = $1 ORDER BY id`, [u.userId]);
  assert.deepEqual(rows.map((r) => [r.event_type, r.details.method, r.details.path, r.details.status]), [
    ['api_request', 'GET', '/api/profile', 200],
    ['api_request', 'POST', '/api/profile/token', 403],
    ['api_request', 'GET', '/api/auth/session', 403],
  ]);
  const [pat] = await t.app.services.db.query<{ id: string }>('SELECT id FROM credentials WHERE consumer_id = $1 AND is_pat', [u.consumerId]);
  assert.ok(rows.every((r) => r.user_id === u.userId && r.details.credential_id === pat!.id));
  // No secret in the event.
  assert.ok(!JSON.stringify(rows).includes(u.pat));
});
