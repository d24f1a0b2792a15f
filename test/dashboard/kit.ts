// Browser tests of the dashboard: Debian's Chromium (apt-get install chromium; /usr/bin/chromium) driven by
// playwright-core, against a real Tollgate whose API serves the built dashboard. Screenshots of every page go to
// .cache/dashboard-screenshots/ (kept as test artefacts, ignored by git).
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestApp, type TestApp, type TestAppOptions } from '@tollgate/testkit/harness.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const SCREENSHOTS = join(root, '.cache', 'dashboard-screenshots');
export const CHROMIUM = process.env.TOLLGATE_CHROMIUM ?? '/usr/bin/chromium';

/** Builds dashboard/dist when it is older than its sources (once per test file). */
export function buildDashboard(): void {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'build-dashboard.mjs'), '--if-stale'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`dashboard build failed:\n${r.stderr}`);
}

export interface DashboardEnv {
  t: TestApp;
  browser: Browser;
  /** A fresh page (its own cookies) on the dashboard. */
  page(): Promise<Page>;
  screenshot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/** Debian's Chromium, headless, with the flags a closed network needs (no background connections to Google's hosts), as root without a sandbox. */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  }).catch((err: unknown) => {
    throw new Error(`cannot start ${CHROMIUM} (apt-get install chromium): ${String(err)}`);
  });
}

export async function startDashboard(opts: TestAppOptions = {}): Promise<DashboardEnv> {
  buildDashboard();
  const t = await startTestApp(opts);
  const browser = await launchChromium().catch(async (err: unknown) => {
    await t.close();
    throw err;
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    t, browser,
    async page() {
      // A laptop screen: the pages must fit it without horizontal scrolling.
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(t.api);
      return page;
    },
    async screenshot(page, name) {
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
    },
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

/** Signs in through the form (and the 2FA step when a code is given). */
export async function signInThroughForm(page: Page, email: string, password: string, code?: () => string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (code) {
    await page.getByLabel('Authentication code').fill(code());
    await page.getByRole('button', { name: 'Verify' }).click();
  }
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** No horizontal scrollbar at the page's viewport width. */
export async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
}
