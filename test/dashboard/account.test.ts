// The account page in a real browser: 2FA enrolment from the QR code and secret the page shows (drawn in the page,
// nothing fetched elsewhere), sign-in with the second factor, the PAT issued and rotated in the page and used with
// the API, and 2FA turned off again. The TOTP codes are computed from the secret read off the page; the app's clock
// is moved one time step before each new code, because the API refuses a code of a step already used.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import qrcode from 'qrcode-generator';
import { manualClock } from '@tollgate/testkit/clock.ts';
import { TEST_PASSWORD } from '@tollgate/testkit/harness.ts';
import { codeAt } from '@tollgate/testkit/session.ts';
import { otpauthUri } from '@tollgate/server/src/identity/totp.ts';
import { createUser } from '@tollgate/server/src/identity/users.ts';
import { unixNow } from '@tollgate/server/src/services.ts';
import { fitsWidth, signInThroughForm, startDashboard, type DashboardEnv } from './kit.ts';

const clock = manualClock();
let d: DashboardEnv;
before(async () => { d = await startDashboard({ clock }); });
after(async () => { await d?.close(); });

/** A user with a name and no PAT yet (the harness's users come with one), so the page issues the first. */
async function userWithoutPat(): Promise<{ email: string }> {
  const email = `account-${Date.now()}@example.test`;
  await d.t.app.services.db.tx((q) => createUser(q, { email, name: 'Ada Lovelace', password: TEST_PASSWORD }, unixNow(clock)));
  return { email };
}

/** The dark modules of the QR code in the page, as "col,row" (qr-code.tsx draws one unit square per module). */
async function drawnModules(page: Page): Promise<{ size: number; dark: Set<string> }> {
  const svg = page.locator('svg.qr');
  const viewBox = (await svg.getAttribute('viewBox'))!.split(' ').map(Number);
  const d = (await svg.locator('path').getAttribute('d')) ?? '';
  const dark = new Set([...d.matchAll(/M(\d+) (\d+)h1v1h-1z/g)].map((m) => `${m[1]},${m[2]}`));
  return { size: viewBox[2]! + 2 * viewBox[0]!, dark };
}

function expectedModules(text: string): { size: number; dark: Set<string> } {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const size = qr.getModuleCount();
  const dark = new Set<string>();
  for (let row = 0; row < size; row++) for (let col = 0; col < size; col++) if (qr.isDark(row, col)) dark.add(`${col},${row}`);
  return { size, dark };
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical findings on the page as it is now (evaluated over CDP, which the page's CSP allows). */
async function axeFindings(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact?: string; nodes: { target: unknown }[] }[] }> } }).axe;
    const r = await axe.run();
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
}

/** A code of none of the steps the API accepts now (it allows one step either side). */
function wrongCode(secret: string): string {
  const valid = [-30, 0, 30].map((s) => codeAt(secret, clock.unixS() + s));
  let n = Number(valid[1]);
  do n = (n + 1) % 1_000_000; while (valid.includes(String(n).padStart(6, '0')));
  return String(n).padStart(6, '0');
}

async function openAccount(page: Page): Promise<void> {
  await page.getByRole('link', { name: 'Account', exact: true }).click();
  await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
}

async function enrol(page: Page, email: string): Promise<string> {
  assert.match(await page.locator('.twofa-state').textContent() ?? '', /^2FA is off\./);
  await page.getByRole('button', { name: 'Set up 2FA' }).click();
  const secret = (await page.locator('.totp-secret').textContent())!;
  assert.match(secret, /^[A-Z2-7]{32}$/);
  // The QR code is drawn in the page and encodes exactly the otpauth:// URI of the secret shown beside it.
  const drawn = await drawnModules(page);
  const expected = expectedModules(otpauthUri({ secretBase32: secret, account: email, issuer: 'Tollgate' }));
  assert.ok(drawn.dark.size > 100, 'the QR code has content');
  assert.equal(drawn.size, expected.size);
  assert.deepEqual(drawn.dark, expected.dark);
  assert.ok(await page.locator('svg.qr').isVisible());
  assert.deepEqual(await axeFindings(page), []);
  await d.screenshot(page, 'account-2fa-enrol');

  await page.getByLabel('Code from your authenticator app').fill(wrongCode(secret));
  await page.getByRole('button', { name: 'Turn on 2FA' }).click();
  await page.getByRole('alert').filter({ hasText: 'Invalid 2FA code' }).waitFor();
  await page.getByLabel('Code from your authenticator app').fill(codeAt(secret, clock.unixS()));
  await page.getByRole('button', { name: 'Turn on 2FA' }).click();
  await page.locator('.twofa-state', { hasText: '2FA is on.' }).waitFor();
  assert.equal(await page.locator('svg.qr').count(), 0, 'the enrolment is gone once 2FA is on');
  await d.screenshot(page, 'account-2fa-on');
  return secret;
}

async function signInWithCode(page: Page, email: string, secret: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Authentication code').waitFor();
  await d.screenshot(page, 'account-2fa-challenge');
  clock.advanceS(30);
  await page.getByLabel('Authentication code').fill(codeAt(secret, clock.unixS()));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** The plaintext in the shown-once box, after it appeared. */
async function shownToken(page: Page): Promise<string> {
  const box = page.locator('.secret-once .secret');
  await box.waitFor();
  return (await box.textContent())!;
}

async function issueAndRotate(page: Page, email: string): Promise<void> {
  await page.locator('.pat-state', { hasText: 'You have no token yet.' }).waitFor();
  await page.getByRole('button', { name: 'Issue a token' }).click();
  const first = await shownToken(page);
  assert.match(first, /^svc_pat_[A-Za-z0-9_-]{43}$/);
  const profile = await d.t.client(first).call('GET /api/profile');
  assert.ok(profile.ok && profile.body.email === email, JSON.stringify(profile));
  await d.screenshot(page, 'account-pat-issued');

  // The copy button: into the clipboard where the browser allows it, else a message and the value selected.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.t.api });
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByRole('status').filter({ hasText: 'Copied to the clipboard.' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), first);
  await page.evaluate(() => Object.defineProperty(navigator, 'clipboard', { value: undefined }));
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByRole('status').filter({ hasText: 'The clipboard is not available here' }).waitFor();
  assert.equal(await page.evaluate(() => getSelection()?.toString()), first);

  // Shown once: leaving the page forgets it, and it was never written to web storage.
  await page.evaluate(() => { location.hash = '#/elsewhere'; });
  await page.locator('main.account').waitFor({ state: 'detached' });
  await openAccount(page);
  await page.locator('.pat-state', { hasText: 'You have a token.' }).waitFor();
  assert.equal(await page.locator('.secret-once').count(), 0);
  assert.ok(!(await page.content()).includes(first), 'the plaintext is gone after navigation');
  assert.deepEqual(await page.evaluate(() => [localStorage.length, sessionStorage.length]), [0, 0]);

  await page.getByRole('button', { name: 'Rotate token…' }).click();
  assert.match(await page.getByRole('alert').textContent() ?? '', /current one stops working at once/);
  await d.screenshot(page, 'account-pat-rotate-warning');
  await page.getByRole('button', { name: 'Rotate now' }).click();
  const second = await shownToken(page);
  assert.notEqual(second, first);
  assert.match(await page.locator('.secret-once').textContent() ?? '', /The previous token no longer works\./);
  assert.deepEqual(await axeFindings(page), []);
  await d.screenshot(page, 'account-pat-rotated');
  const old = await d.t.client(first).call('GET /api/profile');
  assert.deepEqual(old.ok ? old.status : [old.error.status, old.error.message], [401, 'Invalid personal access token']);
  assert.ok((await d.t.client(second).call('GET /api/profile')).ok);
}

async function disable(page: Page, secret: string): Promise<void> {
  clock.advanceS(30);
  await page.getByLabel('Current authentication code').fill(wrongCode(secret));
  await page.getByRole('button', { name: 'Turn off 2FA' }).click();
  await page.getByRole('alert').filter({ hasText: 'Invalid 2FA code' }).waitFor();
  await page.getByLabel('Current authentication code').fill(codeAt(secret, clock.unixS()));
  await page.getByRole('button', { name: 'Turn off 2FA' }).click();
  await page.locator('.twofa-state', { hasText: '2FA is off.' }).waitFor();
  await page.getByRole('button', { name: 'Set up 2FA' }).waitFor();
  await d.screenshot(page, 'account-2fa-off');
}

test('account: enrol 2FA from the page, sign in with a code, issue and rotate the PAT, turn 2FA off', async () => {
  const { email } = await userWithoutPat();
  const page = await d.page();
  const requests: string[] = [];
  const violations: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(m.text()); });
  await page.reload();

  await signInThroughForm(page, email, TEST_PASSWORD);
  await openAccount(page);
  await page.getByText('Ada Lovelace').waitFor();
  assert.ok(await page.locator('.facts').getByText(email).isVisible());
  assert.ok(await page.locator('.facts code', { hasText: 'private:permissions:user' }).isVisible());
  assert.ok(await fitsWidth(page));
  await d.screenshot(page, 'account');

  const secret = await enrol(page, email);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signInWithCode(page, email, secret);
  await openAccount(page);
  assert.match(await page.locator('.twofa-state').textContent() ?? '', /^2FA is on\./);

  await issueAndRotate(page, email);
  await disable(page, secret);
  assert.ok(await fitsWidth(page));

  const origin = new URL(d.t.api).origin;
  assert.ok(requests.length > 5, 'the listener saw the page load');
  assert.deepEqual(requests.filter((u) => new URL(u).origin !== origin), [], 'nothing fetched from another origin');
  assert.deepEqual(violations, []);
});
