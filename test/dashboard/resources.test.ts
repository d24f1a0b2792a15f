// Every resource a user owns, managed in the browser against a real Tollgate with fake upstreams: an MCP proxy
// (create, tool discovery, DNS re-resolve, cache drain, synthetic resources, delete), a client key made with the
// permissions picker whose plaintext is shown once, rules written with the generated forms that the gateway then
// enforces (and the API's own validation message for a bad value), and an LLM proxy whose spend bar follows the
// traffic sent through the gateway, with a per-key cap.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { PROXY_KINDS, RULE_SCHEMAS, RULE_TYPES_BY_KIND } from '@tollgate/contract';
import { must, TEST_PASSWORD, type TestUser } from '@tollgate/testkit/harness.ts';
import { startFakeProvider, type FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { INIT, rawPost, rawSession, sseMessages } from '@tollgate/testkit/mcp-kit.ts';
import { rawLlm } from '@tollgate/testkit/llm-kit.ts';
import { fitsWidth, signInThroughForm, startDashboard, type DashboardEnv } from './kit.ts';

let d: DashboardEnv;
let upstream: McpUpstream;
let fake: FakeProvider;

before(async () => {
  upstream = await startMcpUpstream();
  fake = await startFakeProvider('openai');
  d = await startDashboard({ env: { TOLLGATE_PROVIDER_BASE_URL_OPENAI: fake.url } });
});
after(async () => {
  await d?.close();
  await upstream?.close();
  await fake?.close();
});

async function signedIn(): Promise<{ u: TestUser; page: Page }> {
  const u = await d.t.createUser();
  const page = await d.page();
  await signInThroughForm(page, u.email, TEST_PASSWORD);
  return { u, page };
}

/** The id in `#/<segment>/<id>` once the page has navigated there. */
async function idInHash(page: Page, segment: string): Promise<string> {
  await page.waitForURL(new RegExp(`#/${segment}/[0-9a-f-]{36}$`));
  return decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
}

async function status(page: Page, text: string | RegExp): Promise<void> {
  await page.getByRole('status').filter({ hasText: text }).waitFor();
}

/** Until the focused element is the one with this accessible label (focus moves after the page renders). */
async function focused(page: Page, label: string): Promise<void> {
  await page.waitForFunction((l) => document.activeElement?.getAttribute('aria-label') === l, label, { timeout: 5000 }).catch(async (err: unknown) => {
    const now = await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName);
    throw new Error(`focus is on ${now}, not on ${label}: ${String(err)}`);
  });
}

/** One JSON-RPC answer of the gateway, whether it came as JSON or as SSE. */
function rpcAnswer(r: { json: unknown; text: string }): { result?: { tools?: Array<{ name: string }> } } {
  return (r.json ?? sseMessages(r.text).at(-1)) as { result?: { tools?: Array<{ name: string }> } };
}

test('an MCP proxy: create it, discover its tools, re-resolve, drain a cache, add and delete a synthetic resource', async () => {
  const { u, page } = await signedIn();
  await page.getByRole('link', { name: 'MCP proxies' }).click();
  await page.getByRole('heading', { name: 'MCP proxies' }).waitFor();
  await page.getByLabel('Name', { exact: true }).fill('docs');
  await page.getByLabel('Upstream URL').fill(upstream.url);
  // The token field appears only for bearer auth, write-only.
  await page.getByLabel('Upstream auth').selectOption('bearer');
  assert.equal(await page.getByLabel('Bearer token').getAttribute('type'), 'password');
  await page.getByLabel('Upstream auth').selectOption('none');
  await d.screenshot(page, 'mcp-list');
  await page.getByRole('button', { name: 'Create MCP proxy' }).click();
  const id = await idInHash(page, 'mcp');
  await page.getByRole('heading', { name: 'docs', level: 1 }).waitFor();
  assert.equal(await page.getByTestId('proxy-host').textContent(), `${id}.${d.t.config.proxyDomain}`);

  await page.getByRole('button', { name: 'Discover tools' }).click();
  await status(page, /Discovered \d+ tools/);
  const catalog = page.getByRole('table', { name: 'Tool catalog' });
  assert.match(await catalog.textContent() ?? '', /echo.*Echoes the text back/);
  assert.equal(await catalog.getByRole('row').count(), 1 + must(await d.t.client(u.pat).call('GET /api/mcp/:id', { params: { id } })).tools.length);

  await page.getByRole('button', { name: 'Re-resolve DNS' }).click();
  await status(page, 'Resolved again.');
  assert.match(await page.getByTestId('pin').textContent() ?? '', /127\.0\.0\.1 → 127\.0\.0\.1:\d+/);
  await page.getByRole('button', { name: 'Drain cache of echo' }).click();
  await status(page, 'Cache of echo drained: 0 cached responses dropped.');

  await page.getByText('Add a synthetic resource').click();
  await page.getByLabel('URI').fill('docs://readme');
  await page.getByLabel('Resource name').fill('readme');
  await page.getByLabel('Content').fill('# Read me');
  await page.getByRole('button', { name: 'Add resource' }).click();
  const resources = page.getByRole('table', { name: 'Synthetic resources' });
  await resources.getByText('docs://readme').waitFor();
  assert.deepEqual(must(await d.t.client(u.pat).call('GET /api/mcp/:id/resources', { params: { id } })).resources.map((r) => r.uri), ['docs://readme']);
  // The same URI twice: the API's own message.
  await page.getByLabel('URI').fill('docs://readme');
  await page.getByLabel('Resource name').fill('again');
  await page.getByRole('button', { name: 'Add resource' }).click();
  await page.getByRole('alert').filter({ hasText: 'URI already in use on this MCP server' }).waitFor();
  assert.ok(await fitsWidth(page));
  await d.screenshot(page, 'mcp-detail');

  await resources.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('button', { name: 'Yes, delete' }).click();
  await page.getByText('No synthetic resources.').waitFor();

  await page.getByRole('button', { name: 'Delete MCP proxy' }).click();
  await page.getByRole('button', { name: 'Yes, delete' }).click();
  await page.waitForURL(/#\/mcp$/);
  await page.getByText('No MCP proxies yet.').waitFor();
  assert.equal((await d.t.client(u.pat).call('GET /api/mcp/:id', { params: { id } })).ok, false);
});

test('a key made with the permissions picker, shown once, then a rule written in the page blocks it at the gateway', async () => {
  const { u, page } = await signedIn();
  const api = d.t.client(u.pat);
  const { id } = must(await api.call('POST /api/mcp', { body: { name: 'tools', url: upstream.url } })).server;
  must(await api.call('POST /api/mcp/:id/tools', { params: { id } }));

  await page.getByRole('link', { name: 'Client keys' }).click();
  await page.getByLabel('Key name').fill('agent');
  await page.getByRole('group', { name: 'Tools of tools' }).getByLabel('echo', { exact: true }).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const shown = page.locator('.secret');
  await shown.waitFor();
  const key = (await shown.textContent())!;
  assert.match(key, /^tgk_[A-Za-z0-9_-]{43}$/);
  assert.match(await page.getByRole('table', { name: 'Your client keys' }).textContent() ?? '', new RegExp(`agent${key.slice(0, 6)}\\.\\.\\.[0-9a-f]{4}tools: tools echo`));
  assert.ok(await fitsWidth(page));
  await d.screenshot(page, 'keys');

  // The key reaches the proxy, and tools/list shows only the tool it was granted.
  const url = `${d.t.gateway}/${id}/`;
  const sid = await rawSession(url, key);
  const headers = { authorization: `Bearer ${key}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
  const list = await rawPost(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers);
  assert.deepEqual(rpcAnswer(list).result?.tools?.map((t) => t.name), ['echo']);

  // Gone from the page once it is left: nowhere in the reloaded page, nor in web storage.
  await page.reload();
  await page.getByRole('table', { name: 'Your client keys' }).waitFor();
  assert.ok(!(await page.content()).includes(key));
  assert.deepEqual(await page.evaluate(() => [localStorage.length, sessionStorage.length]), [0, 0]);

  // Edit permissions: every tool; the PATCH replaces the tags.
  await page.getByRole('button', { name: 'Edit permissions of agent' }).click();
  await page.getByRole('region', { name: 'Permissions of agent' }).getByRole('group', { name: 'Tools of tools' }).getByLabel('All tools (*)').check();
  await page.getByRole('button', { name: 'Save permissions' }).click();
  await page.getByRole('table', { name: 'Your client keys' }).getByText('tools: tools *').waitFor();
  assert.ok(must(await api.call('GET /api/keys')).keys[0]!.tags.includes(`mcp:${id}:tool:*`));

  // A deny ip_acl rule for the loopback address the test connects from, written with the generated form.
  await page.goto(`${d.t.api}/#/mcp/${id}`);
  await page.getByText('Add a rule').click();
  await page.getByLabel('Rule type').selectOption('ip_acl');
  await page.getByLabel('action', { exact: true }).selectOption('deny');
  await page.getByLabel('cidrs', { exact: true }).fill('127.0.0.1, ::1');
  await page.getByRole('button', { name: 'Add rule' }).click();
  await status(page, 'Rules saved (1).');
  assert.equal((await rawPost(url, INIT, { authorization: `Bearer ${key}` })).status, 403);

  // Disabled in the list and saved: requests pass again.
  await page.getByLabel('Enabled: rule 0 (ip_acl)').uncheck();
  await page.getByText('Unsaved changes.').waitFor();
  await page.getByRole('button', { name: 'Save rules' }).click();
  await status(page, 'Rules saved (1).');
  assert.equal(must(await api.call('GET /api/mcp/:id/rules', { params: { id } })).rules[0]!.enabled, false);
  assert.equal((await rawPost(url, INIT, { authorization: `Bearer ${key}` })).status, 200);
  assert.ok(await fitsWidth(page));
  await d.screenshot(page, 'mcp-rules');
});

test('rules: reorder from the keyboard, the JSON view, and the API\'s message for a bad value', async () => {
  const { u, page } = await signedIn();
  const api = d.t.client(u.pat);
  const { id } = must(await api.call('POST /api/mcp', { body: { name: 'ordered', url: upstream.url } })).server;
  must(await api.call('PUT /api/mcp/:id/rules', { params: { id }, body: { rules: [
    { rule_type: 'ip_acl', tools: ['*'], action: 'allow', cidrs: ['127.0.0.0/8', '::1/128'] },
    { rule_type: 'rate_limit', tools: ['*'], name: 'generous', match_key: 'api_key', threshold: 1000, timespan: 60 },
  ] } }));
  await page.goto(`${d.t.api}/#/mcp/${id}`);

  // Move the rate limit up: focus stays on the moved rule (now first, so on its "down" button), and Enter moves it back.
  await page.getByRole('button', { name: 'Move rule 1 (rate_limit) up' }).click();
  await focused(page, 'Move rule 0 (rate_limit) down');
  await page.keyboard.press('Enter');
  await focused(page, 'Move rule 1 (rate_limit) up');
  await page.keyboard.press('Enter');
  await focused(page, 'Move rule 0 (rate_limit) down');
  await page.getByRole('button', { name: 'Save rules' }).click();
  await status(page, 'Rules saved (2).');
  assert.deepEqual(must(await api.call('GET /api/mcp/:id/rules', { params: { id } })).rules.map((r) => r.rule_type), ['rate_limit', 'ip_acl']);

  // A static_cache rule whose TTL is out of range: the form shows the API's message, and nothing is stored.
  await page.getByText('Add a rule').click();
  await page.getByLabel('Rule type').selectOption('static_cache');
  assert.match(await page.locator('.rule-form').textContent() ?? '', /Seconds, 60 to 86400\./, 'the schema\'s description is the hint');
  await page.getByLabel('cache_ttl', { exact: true }).fill('10');
  await page.getByRole('button', { name: 'Add rule' }).click();
  await page.locator('.rule-form').getByRole('alert').filter({ hasText: 'rules[2].cache_ttl: must be at least 60' }).waitFor();
  assert.equal(must(await api.call('GET /api/mcp/:id/rules', { params: { id } })).rules.length, 2);
  await d.screenshot(page, 'rules-validation');

  // Edit a rule in its form: the fields it shows are replaced, the rest kept.
  await page.getByRole('button', { name: 'Edit rule 1 (ip_acl)' }).click();
  await page.getByLabel('cidrs', { exact: true }).fill('10.0.0.0/8\n127.0.0.1');
  await page.getByRole('button', { name: 'Save rule' }).click();
  await status(page, 'Rules saved (2).');
  assert.deepEqual(must(await api.call('GET /api/mcp/:id/rules', { params: { id } })).rules[1], {
    rule_type: 'ip_acl', enabled: true, tools: ['*'], action: 'allow', cidrs: ['10.0.0.0/8', '127.0.0.1'],
  });

  // The JSON view: the whole array as stored; a pasted array is saved with one PUT, and a bad one gets the API's words.
  await page.getByText('JSON view').click();
  const json = page.getByLabel('Rules as JSON');
  const stored = JSON.parse(await json.inputValue()) as Array<Record<string, unknown>>;
  assert.deepEqual(stored.map((r) => r.rule_type), ['rate_limit', 'ip_acl']);
  assert.equal(stored[0]!.dryrun, false, 'defaults filled in by the API');
  await json.fill(JSON.stringify([stored[1], { rule_type: 'prompt_guard', tools: ['*'], detectors: ['pi_dan'], action: 'block' }]));
  await page.getByRole('button', { name: 'Save JSON' }).click();
  await page.getByRole('alert').filter({ hasText: 'rules[1].rule_type: prompt_guard is not valid on MCP proxies (rule index 1)' }).waitFor();
  await json.fill(JSON.stringify([stored[1]]));
  await page.getByRole('button', { name: 'Save JSON' }).click();
  await status(page, 'Rules saved (1).');
  assert.deepEqual(must(await api.call('GET /api/mcp/:id/rules', { params: { id } })).rules.map((r) => r.rule_type), ['ip_acl']);
});

test('an LLM proxy with a budget: the spend bar moves with the traffic and turns red over the cap; a per-key cap', async () => {
  const { u, page } = await signedIn();
  await page.getByRole('link', { name: 'LLM proxies' }).click();
  await page.getByLabel('Name', { exact: true }).fill('chat');
  await page.getByLabel('Provider', { exact: true }).selectOption('openai');
  await page.getByLabel('Allowed models').fill('o1, gpt-4o-mini');
  await page.getByLabel('Default model').fill('o1');
  await page.getByLabel('Set provider key').fill(fake.providerKey);
  await page.getByLabel('Proxy budget').check();
  await page.getByLabel('Period').selectOption('daily');
  await page.getByLabel('Cap (USD)').fill('0.05');
  await page.getByLabel(/Hard block/).check();
  await d.screenshot(page, 'llm-list');
  await page.getByRole('button', { name: 'Create LLM proxy' }).click();
  const id = await idInHash(page, 'llm');
  await page.getByRole('heading', { name: 'chat', level: 1 }).waitFor();
  const llm = must(await d.t.client(u.pat).call('GET /api/llm/:id', { params: { id } }));
  assert.deepEqual([llm.allowedModels, llm.defaultModel, llm.budget], [['o1', 'gpt-4o-mini'], 'o1', { period: 'daily', capUsd: 0.05, hardBlock: true }]);
  const bar = page.getByRole('meter', { name: 'Spend in the current window' });
  assert.equal(await bar.getAttribute('aria-valuetext'), '$0.00 of $0.05 spent (0%)');

  // A key for the proxy with the picker: the proxy's allowed models are the options.
  await page.getByRole('link', { name: 'Client keys' }).click();
  await page.getByLabel('Key name').fill('bot');
  await page.getByRole('group', { name: 'Models of chat' }).getByLabel('o1', { exact: true }).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.locator('.secret').textContent())!;

  // Each answer of the fake costs 1.1835 cents with o1 (test/llm-budget-replicas.test.ts): three make 4 cents. A
  // small max_tokens keeps the gateway's up-front reservation small, so the fifth request still fits under the cap
  // with the shared state store too (the reservation counts against the window until the answer is accounted).
  const send = async () => {
    const r = await rawLlm(`${d.t.gateway}/${id}/v1/chat/completions`, { model: 'o1', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${key}` });
    assert.equal(r.status, 200, r.text);
  };
  for (let i = 0; i < 3; i++) await send();
  await d.t.flush();
  await page.goto(`${d.t.api}/#/llm/${id}`);
  await bar.waitFor();
  assert.equal(await bar.getAttribute('aria-valuetext'), '$0.04 of $0.05 spent (80%)');
  assert.equal(await bar.getAttribute('class'), 'bar');

  for (let i = 0; i < 2; i++) await send();
  await d.t.flush();
  await page.getByRole('button', { name: 'Refresh spend' }).click();
  await page.locator('.bar.over').waitFor();
  assert.equal(await bar.getAttribute('aria-valuetext'), '$0.06 of $0.05 spent (100%)');
  await page.getByText('over the cap: requests are refused (402)').waitFor();
  assert.equal((await rawLlm(`${d.t.gateway}/${id}/v1/chat/completions`, { model: 'o1', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${key}` })).status, 402);

  // A higher cap through the settings form (PATCH): the bar follows; the provider key left empty is kept.
  await page.getByText('Edit settings and budget').click();
  assert.equal(await page.getByLabel('Replace provider key').inputValue(), '', 'the stored key is never shown back');
  await page.getByLabel('Cap (USD)').fill('1');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await status(page, 'Saved.');
  await page.getByRole('meter').and(page.locator('[aria-valuetext="$0.06 of $1.00 spent (6%)"]')).waitFor();
  assert.deepEqual(must(await d.t.client(u.pat).call('GET /api/llm/:id', { params: { id } })).budget, { period: 'daily', capUsd: 1, hardBlock: true }, 'the form kept the other fields');
  await send();
  await page.getByText('Edit settings and budget').click();

  // Per-key cap: set, shown, removed.
  await page.getByRole('button', { name: 'Set cap of bot' }).click();
  const capForm = page.getByRole('form', { name: 'Cap of bot' });
  await capForm.getByLabel('Period').selectOption('monthly');
  await capForm.getByLabel('Cap (USD)').fill('2');
  await capForm.getByRole('button', { name: 'Save cap' }).click();
  const perKey = page.getByRole('table', { name: 'Per-key budgets' });
  await perKey.getByText('$2 monthly').waitFor();
  await page.getByRole('button', { name: 'Re-resolve DNS' }).click();
  await status(page, 'Resolved again.');
  assert.ok(await fitsWidth(page));
  await d.screenshot(page, 'llm-detail');
  await page.getByRole('button', { name: 'Remove cap of bot' }).click();
  await perKey.getByRole('cell', { name: 'none', exact: true }).waitFor();
  const entry = must(await d.t.client(u.pat).call('GET /api/llm/:id/keys', { params: { id } })).keys[0]!;
  assert.deepEqual([entry.name, entry.models, entry.budget], ['bot', ['o1'], null]);

  // The provider key is write-only: nothing in the page shows it.
  assert.ok(!(await page.content()).includes(fake.providerKey));
});

/** axe over the rule form only: the ids of serious and critical findings. */
async function axeRuleForm(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Element): Promise<{ violations: Array<{ id: string; impact: string | null }> }> } }).axe;
    const r = await axe.run(document.querySelector('.rule-form')!);
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
  });
}

test('every rule type\'s generated form, on both proxy kinds, has labelled controls (axe: nothing serious or critical)', async () => {
  const u = await d.t.createUser();
  const api = d.t.client(u.pat);
  const ids = {
    mcp: must(await api.call('POST /api/mcp', { body: { name: 'forms', url: upstream.url } })).server.id,
    llm: must(await api.call('POST /api/llm', { body: { name: 'forms', provider: 'openai' } })).id,
  };
  // axe is a script of its own, which the dashboard's CSP rightly refuses: this context bypasses it.
  const context = await d.browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  const page = await context.newPage();
  await page.goto(d.t.api);
  await signInThroughForm(page, u.email, TEST_PASSWORD);
  const found: Record<string, string[]> = {};
  for (const kind of PROXY_KINDS) {
    await page.goto(`${d.t.api}/#/${kind}/${ids[kind]}`);
    await page.getByText('Add a rule').click();
    await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
    for (const type of RULE_TYPES_BY_KIND[kind]) {
      await page.getByLabel('Rule type').selectOption(type);
      await page.locator('.rule-form').getByText(RULE_SCHEMAS[type].description!, { exact: true }).waitFor();
      const bad = await axeRuleForm(page);
      if (bad.length) found[`${kind}/${type}`] = bad;
      assert.ok(await fitsWidth(page), `${kind}/${type} fits the width`);
    }
  }
  await context.close();
  assert.deepEqual(found, {});
});
