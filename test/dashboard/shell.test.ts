// The dashboard as served by the API: its headers (a strict CSP, nothing cached but hashed assets), sign-in and
// sign-out through the form in a real browser, and a wrong password answered in the API's own words.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_PASSWORD } from '@tollgate/testkit/harness.ts';
import { DASHBOARD_CSP } from '../../server/src/api/dashboard/static-files.ts';
import { fitsWidth, signInThroughForm, startDashboard, type DashboardEnv } from './kit.ts';

let d: DashboardEnv;
before(async () => { d = await startDashboard(); });
after(async () => { await d?.close(); });

test('the API serves the dashboard at / under a strict Content-Security-Policy; /api stays the API', async () => {
  const index = await fetch(`${d.t.api}/`);
  assert.equal(index.status, 200);
  assert.match(index.headers.get('content-type') ?? '', /text\/html/);
  assert.equal(index.headers.get('content-security-policy'), DASHBOARD_CSP);
  assert.match(DASHBOARD_CSP, /script-src 'self'(;|$)/, 'no inline script, no other host');
  assert.equal(index.headers.get('cache-control'), 'no-cache');
  const html = await index.text();
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script in index.html');
  const asset = html.match(/src="(\/assets\/[^"]+\.js)"/)?.[1];
  assert.ok(asset, html);
  const js = await fetch(`${d.t.api}${asset}`);
  assert.equal(js.status, 200);
  assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  // eslint-disable-next-line no-restricted-syntax -- the wire: an unknown /api path is the API's 404, not the dashboard
  const api = await fetch(`${d.t.api}/api/nope`);
  assert.deepEqual([api.status, await api.json()], [404, { error: 'Endpoint not found' }]);
});

test('sign in and out through the form; a wrong password shows the API\'s message', async () => {
  const u = await d.t.createUser();
  const page = await d.page();
  const violations: string[] = [];
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(m.text()); });
  await page.getByLabel('Email').fill(u.email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor();
  assert.equal(await page.getByRole('alert').textContent(), 'Invalid email or password');
  await d.screenshot(page, 'sign-in-error');

  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await signInThroughForm(page, u.email, TEST_PASSWORD);
  assert.ok(await page.getByText(u.email).isVisible());
  assert.ok(await fitsWidth(page));
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name.includes('tollgate_session'));
  assert.ok(session?.httpOnly && session.sameSite !== 'None', JSON.stringify(cookies));
  assert.deepEqual(await page.evaluate(() => [localStorage.length, sessionStorage.length]), [0, 0], 'nothing in web storage');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  assert.deepEqual(violations, []);
});
