import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, TEST_PASSWORD } from '@tollgate/testkit/harness.ts';
import { purgeExpiredSessions } from './session-purge.ts';

test('the session purge deletes expired sessions of every user and leaves live ones working', async () => {
  const t = await startTestApp();
  try {
    const s = t.app.services;
    const gone = await t.createUser();
    const live = await t.createUser();
    const login = async (email: string) => {
      const r = await t.request('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } });
      assert.equal(r.status, 200, r.text);
      return /tollgate_session=([^;]+)/.exec(r.headers.get('set-cookie') ?? '')![1]!;
    };
    await login(gone.email);
    await login(gone.email);
    const cookie = await login(live.email);
    // The first user's sessions expired long ago and that user never signs in again.
    await s.db.query('UPDATE sessions SET expires_at = 1000 WHERE user_id = $1', [gone.userId]);
    assert.equal(await purgeExpiredSessions(s), 2);
    assert.equal(await purgeExpiredSessions(s), 0, 'idempotent');
    const left = await s.db.query<{ user_id: string }>('SELECT user_id FROM sessions');
    assert.deepEqual(left.map((r) => r.user_id), [live.userId]);
    const me = await t.request('GET', '/api/profile', { headers: { cookie: `tollgate_session=${cookie}` } });
    assert.equal(me.status, 200, me.text);
  } finally {
    await t.close();
  }
});
