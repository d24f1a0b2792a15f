// What happened, in the browser: a request an ip_acl rule blocks shows up in the logs table and in the chart's numbers,
// the filters (kept in the hash, so a reload keeps them) narrow the table, paging walks the events, the usage and
// conversation pages show the LLM traffic, and the overview counts it. No page breaks the CSP or scrolls sideways.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { ApiClient } from '@tollgate/contract';
import { must, TEST_PASSWORD } from '@tollgate/testkit/harness.ts';
import type { FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { fitsWidth, signInThroughForm, startDashboard, type DashboardEnv } from './kit.ts';
import { PROMPT, seedActivity, startOpenAi, type Seeded } from './seed.ts';

let d: DashboardEnv;
let fake: FakeProvider;
let s: Seeded;
let page: Page;
const violations: string[] = [];

before(async () => {
  const openai = await startOpenAi();
  fake = openai.fake;
  d = await startDashboard({ env: openai.env });
  s = await seedActivity(d, fake, { allowed: 4, denied: 2 });
  page = await d.page();
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(m.text()); });
  await signInThroughForm(page, s.user.email, TEST_PASSWORD);
});
after(async () => {
  await d?.close();
  await s?.upstream.close();
  await fake?.close();
});

async function open(hash: string, heading: string): Promise<void> {
  await page.evaluate((h) => { location.hash = h; }, hash);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** The totals of a chart's legend ("Denied: 2 in total"), by series label. */
async function legend(figure: string): Promise<Record<string, number>> {
  const items = await page.locator('figure.chart', { hasText: figure }).locator('.legend li').allTextContents();
  return Object.fromEntries(items.map((t) => {
    const m = /^(.+): ([\d,.$]+) in total$/.exec(t.trim());
    assert.ok(m, t);
    return [m[1]!, Number(m[2]!.replace(/[$,]/g, ''))];
  }));
}

/** The data table under a chart (its text alternative): the sum of one column. */
async function columnSum(figure: string, column: string): Promise<number> {
  const table = page.locator('figure.chart', { hasText: figure }).locator('table');
  const headers = await table.locator('thead th').allTextContents();
  const i = headers.indexOf(column);
  assert.ok(i > 0, `${column} in ${headers.join(', ')}`);
  const cells = await table.locator(`tbody tr > :nth-child(${i + 1})`).allTextContents();
  return cells.reduce((sum, c) => sum + Number(c.replace(/[$,]/g, '')), 0);
}

/**
 * The API as this browser session calls it: unlike a PAT, a session's reads add no api_request event, so the totals
 * the test reads stay the totals the page shows.
 */
async function sessionApi(): Promise<ApiClient> {
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  return new ApiClient({ endpoint: d.t.api, headers: { cookie } });
}

const eventColumn = () => page.locator('table.events tbody tr td:nth-child(2)').allTextContents();

test('the ip_acl deny is in the logs table and in the chart, per hour and per day', async () => {
  await open('#/logs', 'Logs');
  await page.locator('table.events').waitFor();
  assert.ok((await eventColumn()).includes('ip_blocked'), 'the blocked request is listed');
  const row = page.locator('table.events tbody tr', { hasText: 'ip_blocked' }).first();
  assert.match(await row.textContent() ?? '', /blocked-mcp \(MCP\).*ip_acl#0.*127\.0\.0\.1/);

  await page.locator('.chart-plot canvas').first().waitFor();
  const hourly = await legend('Requests per hour');
  assert.ok(hourly.Denied! >= 2 && hourly.Allowed! >= 4, JSON.stringify(hourly));
  assert.equal(await columnSum('Requests per hour', 'Denied'), hourly.Denied);
  assert.match(await page.locator('.chart-plot').first().getAttribute('aria-label') ?? '', /Denied 2\b/);
  await d.screenshot(page, 'logs');

  await page.getByRole('link', { name: 'By day' }).click();
  await page.getByRole('figure', { name: 'Requests per day (UTC)' }).waitFor();
  assert.ok(/bucket=day/.test(page.url()));
  assert.ok((await legend('Requests per day')).Denied! >= 2);
  assert.ok(await fitsWidth(page));
});

test('the event-type filter narrows the table, stays in the hash across a reload, and is cleared', async () => {
  const api = await sessionApi();
  await open('#/logs', 'Logs');
  await page.getByLabel('Event type').selectOption('ip_blocked');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL(/event_type=ip_blocked/);
  await page.getByText('Page 1 of 1 · 2 events').waitFor();
  assert.deepEqual(await eventColumn(), ['ip_blocked', 'ip_blocked']);

  await page.reload();
  await page.getByText('Page 1 of 1 · 2 events').waitFor();
  assert.equal(await page.getByLabel('Event type').inputValue(), 'ip_blocked');
  assert.deepEqual(await eventColumn(), ['ip_blocked', 'ip_blocked']);

  // "Every denial" is the group of deny outcomes: still the two blocks here, and none of the allows.
  await page.getByLabel('Event type').selectOption({ label: 'Every denial' });
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL(/event_type=deny%2Cblock/);
  await page.getByText('· 2 events').waitFor();

  // A time range that ends before the traffic leaves nothing.
  await page.getByLabel('To (your time)').fill('2020-01-01T00:00');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByText('Page 1 of 1 · 0 events').waitFor();
  assert.ok(await page.getByText('No events.').isVisible());

  await page.getByRole('link', { name: 'Clear filters' }).click();
  const all = must(await api.call('GET /api/logs')).total;
  await page.getByText(`Page 1 of 1 · ${all} events`).waitFor();
});

test('the proxy, tool and model filters narrow the table to what the API answers for them', async () => {
  const api = await sessionApi();
  await open('#/logs', 'Logs');
  await page.getByLabel('Proxy').selectOption({ label: 'blocked-mcp (MCP)' });
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL(new RegExp(`proxy=mcp%3A${s.blocked.id}`));
  const blocked = must(await api.call('GET /api/logs', { query: { mcp_uuid: s.blocked.id } })).total;
  assert.ok(blocked >= 2, `events of blocked-mcp: ${blocked}`);
  await page.getByText(`Page 1 of 1 · ${blocked} events`).waitFor();
  assert.ok((await eventColumn()).includes('ip_blocked'));

  await page.getByLabel('Proxy').selectOption({ label: 'chat-llm (LLM)' });
  await page.getByLabel('Model').fill('no-such-model');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL(/model=no-such-model/);
  await page.getByText('Page 1 of 1 · 0 events').waitFor();
  await page.getByRole('link', { name: 'Clear filters' }).click();
  await page.waitForURL((u) => !u.hash.includes('proxy='));
});

test('paging walks every event once, and the page is in the hash', async () => {
  const all = must(await (await sessionApi()).call('GET /api/logs', { query: { limit: 500 } }));
  const limit = 3;
  const pages = Math.ceil(all.total / limit);
  assert.ok(pages >= 3, `${all.total} events`);
  await open(`#/logs?limit=${limit}`, 'Logs');
  const seen: string[] = [];
  for (let p = 1; p <= pages; p++) {
    await page.getByText(`Page ${p} of ${pages} · ${all.total} events`).waitFor();
    seen.push(...await eventColumn());
    if (p < pages) {
      await page.getByRole('link', { name: 'Next page' }).click();
      await page.waitForURL(new RegExp(`page=${p + 1}`));
    }
  }
  assert.equal(await page.getByRole('link', { name: 'Next page' }).count(), 0, 'no next page after the last');
  assert.deepEqual(seen, all.logs.map((e) => e.event_type));
  await page.getByRole('link', { name: 'Previous page' }).click();
  await page.getByText(`Page ${pages - 1} of ${pages}`).waitFor();
});

test('usage after LLM traffic: daily and monthly cost and tokens, and the key\'s own days', async () => {
  const daily = must(await (await sessionApi()).call('GET /api/llm/:id/usage/daily', { params: { id: s.llmId } }));
  assert.equal(daily.totals.requests, 1);
  await open('#/usage', 'Usage');
  await page.locator('figure.chart', { hasText: 'Per day: tokens' }).waitFor();
  const tokens = await legend('Per day: tokens');
  assert.deepEqual([tokens['Input tokens'], tokens['Output tokens']], [daily.totals.inputTokens, daily.totals.outputTokens]);
  assert.ok(daily.totals.inputTokens > 0);
  assert.ok((await legend('Per day: cost')).Cost! > 0);
  assert.ok((await legend('Per month: cost')).Cost! > 0);
  assert.ok(await fitsWidth(page));
  await d.screenshot(page, 'usage');

  const row = page.locator('table', { hasText: 'This month per key' }).locator('tbody tr', { hasText: s.keyName });
  assert.equal(await row.locator('td').first().textContent(), '1', 'one request with this key');
  await row.getByRole('link', { name: `Show daily usage of key ${s.keyName}` }).click();
  await page.getByRole('heading', { name: `Key ${s.keyName}: daily, last 14 days` }).waitFor();
  await page.locator('figure.chart', { hasText: `Key ${s.keyName}, per day: tokens` }).waitFor();
  assert.equal((await legend(`Key ${s.keyName}, per day: tokens`))['Input tokens'], daily.totals.inputTokens);
  await d.screenshot(page, 'usage-key');
});

test('conversation logs: the list, then one conversation with its prompt and completion', async () => {
  await open('#/conversations', 'Conversations');
  const first = page.locator('table.conversations tbody tr').first();
  await first.waitFor();
  assert.match(await first.textContent() ?? '', /gpt-4o-mini/);
  await d.screenshot(page, 'conversations');
  await first.getByRole('link').click();
  await page.getByRole('heading', { name: 'Prompt' }).waitFor();
  assert.match(await page.locator('pre.prompt').textContent() ?? '', new RegExp(PROMPT));
  assert.ok((await page.locator('pre.completion').textContent() ?? '').length > 0);
  assert.ok(await fitsWidth(page));
  await d.screenshot(page, 'conversation');
});

test('the overview counts the traffic, shows health and the recent events', async () => {
  const o = must(await (await sessionApi()).call('GET /api/overview'));
  await open('#/', 'Overview');
  const card = (label: string) => page.locator('.card', { hasText: label }).locator('.n').textContent();
  await page.locator('.card').first().waitFor();
  assert.equal(await card('Denied, 24 h'), String(o.deny24h));
  assert.ok(o.deny24h >= 2);
  assert.equal(await card('MCP proxies'), '2');
  await page.getByRole('row', { name: /database up/ }).waitFor();
  await page.locator('table.events').waitFor();
  assert.ok(await fitsWidth(page));
  await d.screenshot(page, 'overview');
  assert.deepEqual(violations, [], 'no Content-Security-Policy violation on any page');
});
