// Accessibility of every page of the dashboard, whoever wrote it: axe-core (no finding of impact serious or critical)
// on the sign-in page, on each page the rendered navigation links to and on one page of each kind those link to (a
// proxy's detail page), with a little data in them; the keyboard: Tab reaches the navigation and every control of each
// page of the navigation, each with a visible focus indicator; and no page scrolls sideways at 1280x800. The pages are
// read from the navigation when the test runs, so a new page is covered as soon as it has a nav label.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { ApiClient } from '@tollgate/contract';
import { must, TEST_PASSWORD } from '@tollgate/testkit/harness.ts';
import type { FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { fitsWidth, signInThroughForm, startDashboard, type DashboardEnv } from './kit.ts';
import { seedActivity, startOpenAi, type Seeded } from './seed.ts';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let d: DashboardEnv;
let fake: FakeProvider;
let s: Seeded;
let context: BrowserContext;
let page: Page;
let inFlight = 0;

before(async () => {
  const openai = await startOpenAi();
  fake = openai.fake;
  d = await startDashboard({ env: openai.env });
  s = await seedActivity(d, fake, { allowed: 2, denied: 1 });
  // axe is injected as a script of its own, which the dashboard's CSP (script-src 'self') rightly refuses: this
  // context bypasses it. The CSP itself is checked by the other dashboard tests, in contexts that keep it.
  context = await d.browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  page = await context.newPage();
  const isApi = (r: Request) => ['fetch', 'xhr'].includes(r.resourceType());
  page.on('request', (r) => { if (isApi(r)) inFlight++; });
  page.on('requestfinished', (r) => { if (isApi(r)) inFlight--; });
  page.on('requestfailed', (r) => { if (isApi(r)) inFlight--; });
  await page.goto(d.t.api);
});
after(async () => {
  await context?.close();
  await d?.close();
  await s?.upstream.close();
  await fake?.close();
});

/** Until no API call has been in flight for a moment: the page shows what it loaded. */
async function settle(): Promise<void> {
  let quiet = 0;
  for (let i = 0; i < 200 && quiet < 4; i++) {
    await new Promise((r) => setTimeout(r, 50));
    quiet = inFlight === 0 ? quiet + 1 : 0;
  }
}

async function visit(hash: string): Promise<void> {
  await page.evaluate((h) => { location.hash = h; }, hash);
  await page.locator('#main h1').first().waitFor();
  await settle();
}

interface Finding { id: string; impact: string; help: string; targets: string[] }

/** axe over the whole document, closed <details> opened first so their tables are checked too. */
async function axe(): Promise<Finding[]> {
  if (!await page.evaluate(() => 'axe' in window)) await page.addScriptTag({ path: AXE });
  await page.evaluate(() => { for (const el of document.querySelectorAll('details')) el.open = true; });
  return page.evaluate(async () => {
    const run = (window as unknown as { axe: { run(ctx: Document): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe.run;
    const r = await run(document);
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  });
}

/** The pages of the rendered navigation: label and href. */
async function navPages(): Promise<Array<{ label: string; href: string }>> {
  return page.getByRole('navigation', { name: 'Main' }).getByRole('link').evaluateAll((links) =>
    links.map((a) => ({ label: a.textContent ?? '', href: a.getAttribute('href') ?? '' })));
}

/** In-app links of the page's main content. */
function inPageLinks(): Promise<string[]> {
  return page.locator('#main a[href^="#/"]').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
}

/** A route with its ids and query left out: `#/mcp/<uuid>?tab=x` is `#/mcp/:id`. */
const shape = (href: string) => href.split('?')[0]!.replace(/\/[0-9a-f]{8}-[0-9a-f-]{27}/gi, '/:id');

async function sessionApi(): Promise<ApiClient> {
  const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  return new ApiClient({ endpoint: d.t.api, headers: { cookie } });
}

test('axe finds nothing serious or critical on the sign-in page, on every page of the navigation and on the pages they link to', async (t) => {
  const findings: Record<string, Finding[]> = {};
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  findings['sign-in'] = await axe();
  await signInThroughForm(page, s.user.email, TEST_PASSWORD);

  const pages = await navPages();
  assert.ok(pages.length >= 4, JSON.stringify(pages));
  const [log] = must(await (await sessionApi()).call('GET /api/llm/:id/logs', { params: { id: s.llmId } })).logs;
  assert.ok(log, 'the seeded chat was logged');
  // Pages reached by a link rather than the navigation, with data in them.
  const extra = [
    { label: 'one conversation', href: `#/conversations/${s.llmId}/${log.id}` },
    { label: 'usage of one key', href: `#/usage?llm=${s.llmId}&key=${log.credentialId ?? ''}` },
    { label: 'logs filtered, by day', href: '#/logs?event_type=ip_blocked&bucket=day' },
  ];
  const wide: string[] = [];
  const linked = new Map<string, string>();
  for (const p of [...pages, ...extra]) {
    await visit(p.href);
    if (!await fitsWidth(page)) wide.push(p.label);
    findings[p.label] = await axe();
    for (const href of await inPageLinks()) if (!linked.has(shape(href))) linked.set(shape(href), href);
  }
  // One level deeper: one page of each shape the pages link to (a proxy's detail page, say), once.
  const seen = new Set([...pages, ...extra].map((p) => shape(p.href)));
  for (const [key, href] of linked) {
    if (seen.has(key)) continue;
    await visit(href);
    if (!await fitsWidth(page)) wide.push(key);
    findings[key] = await axe();
  }
  t.diagnostic(`checked: ${Object.keys(findings).join(', ')}`);
  const bad = Object.entries(findings).filter(([, f]) => f.length);
  assert.deepEqual(bad, [], `axe findings:\n${JSON.stringify(bad, null, 2)}`);
  assert.deepEqual(wide, [], 'pages that scroll sideways at 1280x800');
});

interface Stop { kbd: string | null; nav: string | null; visibleFocus: boolean; tag: string }

/** Marks every control of #main that Tab should reach (visible, enabled, not taken out of the order); returns them. */
function markControls(): Promise<string[]> {
  return page.evaluate(() => {
    const sel = 'a[href], button, input:not([type="hidden"]):not([type="radio"]), select, textarea, summary, [tabindex]:not([tabindex="-1"])';
    const els = [...document.querySelectorAll<HTMLElement>(`#main ${sel.split(', ').join(', #main ')}`)]
      .filter((el) => !(el as HTMLButtonElement).disabled && el.tabIndex >= 0 && el.checkVisibility());
    return els.map((el, i) => {
      el.dataset.kbd = String(i);
      return `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? (el as HTMLInputElement).name ?? '').trim().slice(0, 40)}"`;
    });
  });
}

function focused(): Promise<Stop> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { kbd: null, nav: null, visibleFocus: true, tag: 'body' };
    const cs = getComputedStyle(el);
    const outline = cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0;
    return {
      kbd: el.dataset.kbd ?? null,
      nav: el.closest('nav[aria-label="Main"]') ? el.textContent : null,
      visibleFocus: outline || cs.boxShadow !== 'none',
      tag: `${el.tagName.toLowerCase()} ${el.textContent?.trim().slice(0, 30) ?? ''}`,
    };
  });
}

/** Tabs through the page from the top; what it reached, and which stops showed no focus indicator. */
async function tabThrough(controls: number): Promise<{ reached: Set<string>; nav: Set<string>; invisible: string[] }> {
  // Focus (then drop) a mark at the top of the body: Chromium's next Tab starts from the last focused point, and the
  // walk must start where a keyboard user arriving on the page starts.
  await page.evaluate(() => {
    const mark = document.createElement('span');
    mark.tabIndex = -1;
    document.body.prepend(mark);
    mark.focus();
    mark.remove();
    window.scrollTo(0, 0);
  });
  const reached = new Set<string>();
  const nav = new Set<string>();
  const invisible: string[] = [];
  for (let i = 0; i < controls + 40; i++) {
    await page.keyboard.press('Tab');
    const f = await focused();
    if (f.tag === 'body' && i > 0) break;
    if (!f.visibleFocus) invisible.push(f.tag);
    if (f.kbd !== null) reached.add(f.kbd);
    if (f.nav !== null) nav.add(f.nav);
    if (reached.size === controls && i > controls) break;
  }
  return { reached, nav, invisible };
}

test('the keyboard reaches the navigation and every control of each page, with a visible focus', async () => {
  const pages = await navPages();
  const problems: string[] = [];
  for (const p of pages) {
    await visit(p.href);
    const controls = await markControls();
    const { reached, nav, invisible } = await tabThrough(controls.length);
    const missed = controls.filter((_, i) => !reached.has(String(i)));
    const navMissed = pages.map((x) => x.label).filter((l) => !nav.has(l));
    if (missed.length) problems.push(`${p.label}: Tab never reached ${missed.join(', ')}`);
    if (navMissed.length) problems.push(`${p.label}: Tab never reached the navigation links ${navMissed.join(', ')}`);
    if (invisible.length) problems.push(`${p.label}: no visible focus on ${invisible.join(', ')}`);
  }
  assert.deepEqual(problems, []);
});
