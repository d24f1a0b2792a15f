// The sign-in limit across replicas: two API instances on one PostgreSQL schema and one Redis key prefix (the same
// isolation, as two `tollgate serve --role api` pods share them) count one window per e-mail, so parallel guesses
// spread over both still get exactly 10 password checks. Needs DATABASE_URL and REDIS_URL (the embedded datastores
// belong to one instance).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { newIsolation, startTestApp, TEST_PASSWORD, type TestApp } from '@tollgate/testkit/harness.ts';

const shared = !!process.env.DATABASE_URL && !!process.env.REDIS_URL;
const why = 'two API replicas need a shared PostgreSQL and Redis: set DATABASE_URL and REDIS_URL to run this test';

let a: TestApp;
let b: TestApp;
const iso = newIsolation();

before(async () => {
  if (!shared) return;
  a = await startTestApp({ isolation: iso, role: 'api' });
  b = await startTestApp({ isolation: iso, role: 'api' });
});

after(async () => {
  if (!shared) return;
  await b.close();
  await a.app.services.db.query(`DROP SCHEMA IF EXISTS ${iso.schema} CASCADE`).catch(() => undefined);
  await a.close();
});

test('50 parallel wrong passwords spread over two API replicas: exactly 10 are checked (401), 40 get 429', { skip: shared ? false : why }, async () => {
  const u = await a.createUser();
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) =>
    (i % 2 ? b : a).request('POST', '/api/auth/login', { body: { email: u.email, password: `wrong-${i}` } })));
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  // A 401 is a password that was verified and failed; a 429 was refused before any check.
  assert.deepEqual(counts, { 401: 10, 429: 40 });
  for (const t of [a, b]) {
    const right = await t.request('POST', '/api/auth/login', { body: { email: u.email, password: TEST_PASSWORD } });
    assert.equal(right.status, 429, 'the window is spent on both replicas');
  }
  const other = await a.createUser();
  assert.equal((await b.request('POST', '/api/auth/login', { body: { email: other.email, password: TEST_PASSWORD } })).status, 200,
    'another account is not affected');
});
