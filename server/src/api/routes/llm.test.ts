// LLM proxies through the HTTP API: create/list/get/patch/delete/re-resolve, validation messages, the write-only
// provider key, provider swap, gateway objects, cascade delete and tenant isolation.
import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import { sha256Hex } from '../../crypto/tokens.ts';
import type { LlmProxyConfig } from '../../snapshot/snapshot.ts';
import { cacheKey, cacheToolPrefix } from '../../gateway/cache-keys.ts';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { setConsumerTags } from '../../identity/users.ts';

// Operator overrides of the provider bases (tests never reach the public providers). Nothing listens there: these
// tests only need the URLs and pins; the data plane has its own tests.
const OPENAI = 'http://127.0.0.1:9101';
const ANTHROPIC = 'http://127.0.0.1:9102';
const NOT_FOUND = { error: 'LLM proxy not found' };
/** What a jwt-mode auth object must pin besides its JWKS. */
const PINS = { issuer: 'https://idp.example', audience: 'api' };
const PROVIDER_KEY = 'sk-test-PROVIDER-KEY-0123456789abcdef';

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: { TOLLGATE_PROVIDER_BASE_URL_OPENAI: OPENAI, TOLLGATE_PROVIDER_BASE_URL_ANTHROPIC: `${ANTHROPIC}/` } });
});
after(async () => { await t.close(); });

async function createLlm(u: TestUser, body: Record<string, unknown> = {}) {
  const r = await t.request('POST', '/api/llm', { token: u.pat, body: { name: 'chat', provider: 'openai', ...body } });
  assert.equal(r.status, 201, r.text);
  return r.body;
}

function snapshotProxy(id: string): LlmProxyConfig | undefined {
  const p = t.app.gateway!.store.current.proxies.get(id);
  return p?.kind === 'llm' ? p : undefined;
}

async function insertKey(u: TestUser, tags: string[]): Promise<string> {
  const id = randomUUID();
  await t.app.services.db.query(
    'INSERT INTO credentials (id, consumer_id, key_hash, key_prefix, tags, is_pat, created_at) VALUES ($1,$2,$3,$4,$5,false,$6)',
    [id, u.consumerId, sha256Hex(randomUUID()), 'tgk_ab', tags, 1],
  );
  return id;
}

async function rsaJwks(): Promise<string> {
  const { publicKey } = await generateKeyPair('RS256', { extractable: true });
  return JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] });
}

async function addTags(u: TestUser, ...tags: string[]): Promise<void> {
  await t.app.services.configChanged(await setConsumerTags(t.app.services.db, u.consumerId, ['private:permissions:user', ...tags]));
}

async function count(u: TestUser): Promise<number> {
  const [row] = await t.app.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM llm_proxies WHERE user_id = $1', [u.userId]);
  return row!.n;
}

describe('POST /api/llm', () => {
  test('creates the proxy and its gateway objects and returns 201 with the record itself', async () => {
    const u = await t.createUser();
    const r = await t.request('POST', '/api/llm', { token: u.pat, body: { name: 'chat', provider: 'openai', providerKey: PROVIDER_KEY } });
    assert.equal(r.status, 201);
    const p = r.body;
    assert.deepEqual(Object.keys(p).sort(), ['allowedModels', 'auth', 'budget', 'createdAt', 'defaultModel', 'id', 'logConversations', 'name', 'provider', 'proxyHost', 'upstreamUrl']);
    assert.match(p.id, /^[0-9a-f-]{36}$/);
    assert.equal(p.name, 'chat');
    assert.equal(p.provider, 'openai');
    assert.equal(p.upstreamUrl, OPENAI);
    assert.deepEqual(p.allowedModels, []);
    assert.equal(p.defaultModel, null);
    assert.equal(p.logConversations, false);
    assert.equal(p.auth, null);
    assert.equal(p.budget, null);
    assert.ok(Number.isInteger(p.createdAt) && Math.abs(p.createdAt - Date.now() / 1000) < 60);
    assert.equal(p.proxyHost, `${p.id}.${t.config.proxyDomain}`);
    assert.ok(!r.text.includes(PROVIDER_KEY));
    // Reachable at once, with the key decrypted for the gateway only (sealed with AAD llm:<id>).
    const snap = t.app.gateway!.store.current;
    assert.equal(snap.hosts.get(p.proxyHost), p.id);
    assert.equal(snap.paths.get(`/${p.id}`), p.id);
    const g = snapshotProxy(p.id)!;
    assert.equal(g.upstreamUrl, OPENAI);
    assert.equal(g.providerKey, PROVIDER_KEY);
    assert.deepEqual(g.pin, { hostname: '127.0.0.1', ip: '127.0.0.1', port: 9101 });
    const [row] = await t.app.services.db.query<{ provider_key_enc: string }>('SELECT provider_key_enc FROM llm_proxies WHERE id = $1', [p.id]);
    assert.match(row!.provider_key_enc, /^v1\./);
    assert.ok(!row!.provider_key_enc.includes(PROVIDER_KEY));
    assert.equal(t.app.services.secrets.open(row!.provider_key_enc, `llm:${p.id}`), PROVIDER_KEY);
  });

  test('stores every optional field as given', async () => {
    const u = await t.createUser();
    const jwks = await rsaJwks();
    const p = await createLlm(u, {
      provider: 'anthropic', allowedModels: ['claude-a', 'claude-b', 'claude-a'], defaultModel: 'claude-b', logConversations: true,
      auth: { mode: 'jwt', issuer: 'https://idp.example', audience: 'api', jwksJson: jwks }, budget: { period: 'monthly', capUsd: 12.5 },
    });
    assert.equal(p.upstreamUrl, ANTHROPIC, 'trailing slash of the override is dropped');
    assert.deepEqual(p.allowedModels, ['claude-a', 'claude-b']);
    assert.equal(p.defaultModel, 'claude-b');
    assert.equal(p.logConversations, true);
    assert.deepEqual(p.auth, { mode: 'jwt', issuer: 'https://idp.example', audience: 'api', jwksJson: jwks, clockSkewS: 30 });
    assert.deepEqual(p.budget, { period: 'monthly', capUsd: 12.5, hardBlock: false });
    const g = snapshotProxy(p.id)!;
    assert.equal(g.auth.mode, 'jwt');
    assert.deepEqual(g.budget, { period: 'monthly', capUsd: 12.5, hardBlock: false });
    assert.deepEqual(g.allowedModels, ['claude-a', 'claude-b']);
    assert.equal(g.providerKey, undefined);
  });

  const invalid: Array<[string, unknown, string]> = [
    ['missing name', { provider: 'openai' }, 'name: is required'],
    ['blank name', { name: '  ', provider: 'openai' }, 'name: is required'],
    ['name not a string', { name: 5, provider: 'openai' }, 'name: must be a string'],
    ['missing provider', { name: 'x' }, 'provider: is required'],
    ['unknown provider', { name: 'x', provider: 'provider_a' }, 'provider: must be one of openai, anthropic, gemini, mistral'],
    ['upstreamUrl set by the client', { name: 'x', provider: 'openai', upstreamUrl: 'http://169.254.169.254/' }, 'upstreamUrl: is derived from provider and cannot be set'],
    ['allowedModels not an array', { name: 'x', provider: 'openai', allowedModels: 'gpt' }, 'allowedModels: must be an array of model ids'],
    ['empty model id', { name: 'x', provider: 'openai', allowedModels: [''] }, 'allowedModels[0]: must not be empty'],
    ['model id with a space', { name: 'x', provider: 'openai', allowedModels: ['a b'] }, 'allowedModels[0]: must be a model id (printable ASCII, no spaces)'],
    ['defaultModel outside allowedModels', { name: 'x', provider: 'openai', allowedModels: ['a'], defaultModel: 'b' }, 'defaultModel: must be one of allowedModels'],
    ['providerKey not a string', { name: 'x', provider: 'openai', providerKey: 42 }, 'providerKey: must be a string'],
    ['providerKey with a newline', { name: 'x', provider: 'openai', providerKey: 'sk-1\r\nX-Evil: 1' }, 'providerKey: must be printable ASCII without spaces'],
    ['logConversations not a boolean', { name: 'x', provider: 'openai', logConversations: 'yes' }, 'logConversations: must be a boolean'],
    ['budget period missing', { name: 'x', provider: 'openai', budget: { capUsd: 1 } }, 'budget.period: is required'],
    ['budget period unknown', { name: 'x', provider: 'openai', budget: { period: 'hourly', capUsd: 1 } }, 'budget.period: must be one of fixed, daily, weekly, monthly'],
    ['budget capUsd negative', { name: 'x', provider: 'openai', budget: { period: 'daily', capUsd: -1 } }, 'budget.capUsd: must be >= 0'],
    ['budget capUsd a string', { name: 'x', provider: 'openai', budget: { period: 'daily', capUsd: '5' } }, 'budget.capUsd: must be a number'],
    ['budget hardBlock a string', { name: 'x', provider: 'openai', budget: { period: 'daily', capUsd: 5, hardBlock: 'true' } }, 'budget.hardBlock: must be a boolean'],
    ['auth mode unknown', { name: 'x', provider: 'openai', auth: { mode: 'basic' } }, 'auth.mode: Invalid option: expected one of "svc_api_key"|"jwt"'],
    ['jwt without an audience', { name: 'x', provider: 'openai', auth: { mode: 'jwt', issuer: 'https://idp.example', jwksJson: '{"keys":[]}' } }, 'auth.audience: is required when mode is jwt'],
    ['jwt without an issuer', { name: 'x', provider: 'openai', auth: { mode: 'jwt', audience: 'api', jwksJson: '{"keys":[]}' } }, 'auth.issuer: is required when mode is jwt'],
    ['jwt without a JWKS', { name: 'x', provider: 'openai', auth: { mode: 'jwt', ...PINS } }, 'auth.jwksJson: is required when mode is jwt'],
    ['jwt with a bad JWKS', { name: 'x', provider: 'openai', auth: { mode: 'jwt', ...PINS, jwksJson: '{"keys":[]}' } }, 'auth.jwksJson: contains no keys'],
  ];
  for (const [what, body, message] of invalid) {
    test(`400 for ${what}, and nothing is stored`, async () => {
      const u = await t.createUser();
      const r = await t.request('POST', '/api/llm', { token: u.pat, body });
      assert.equal(r.status, 400, r.text);
      assert.deepEqual(r.body, { error: message });
      assert.equal(await count(u), 0);
    });
  }

  test('400 Invalid JSON body for malformed JSON and for a missing JSON content type', async () => {
    const u = await t.createUser();
    let r = await t.request('POST', '/api/llm', { token: u.pat, raw: '{"name":', headers: { 'content-type': 'application/json' } });
    assert.deepEqual([r.status, r.body], [400, { error: 'Invalid JSON body' }]);
    r = await t.request('POST', '/api/llm', { token: u.pat, raw: JSON.stringify({ name: 'x', provider: 'openai' }), headers: { 'content-type': 'text/plain' } });
    assert.deepEqual([r.status, r.body], [400, { error: 'Invalid JSON body' }]);
    r = await t.request('POST', '/api/llm', { token: u.pat, body: ['openai'] });
    assert.equal(r.status, 400);
    assert.equal(await count(u), 0);
  });

  test('quota: 10 LLM proxies by default, then 403 with the spec\'s quota wording; nothing more is stored', async () => {
    const u = await t.createUser();
    for (let i = 0; i < 10; i++) await createLlm(u, { name: `l${i}` });
    const r = await t.request('POST', '/api/llm', { token: u.pat, body: { name: 'eleventh', provider: 'openai' } });
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, { error: 'LLM proxy limit reached (10/10). Contact an administrator to raise your quota.' });
    assert.equal(await count(u), 10);
    assert.equal((await t.request('GET', '/api/llm', { token: u.pat })).body.proxies.length, 10);
    // The quota is per user: another user still creates.
    await createLlm(await t.createUser());
  });

  test('quota: the consumer tag private:permissions:llm:limit:N overrides the default', async () => {
    const u = await t.createUser();
    await addTags(u, 'private:permissions:llm:limit:2', 'private:permissions:mcp:limit:0');
    await createLlm(u);
    await createLlm(u);
    const r = await t.request('POST', '/api/llm', { token: u.pat, body: { name: 'x', provider: 'openai' } });
    assert.deepEqual([r.status, r.body], [403, { error: 'LLM proxy limit reached (2/2). Contact an administrator to raise your quota.' }]);
    await addTags(u, 'private:permissions:llm:limit:3');
    await createLlm(u);
    assert.equal(await count(u), 3);
  });

  test('quota: concurrent creates cannot overshoot the LLM proxy quota', async () => {
    const u = await t.createUser();
    await addTags(u, 'private:permissions:llm:limit:3');
    const rs = await Promise.all(Array.from({ length: 8 }, (_, i) =>
      t.request('POST', '/api/llm', { token: u.pat, body: { name: `c${i}`, provider: 'openai' } })));
    assert.deepEqual(rs.map((r) => r.status).sort(), [201, 201, 201, 403, 403, 403, 403, 403]);
    assert.equal(await count(u), 3);
  });

  test('401 without a credential', async () => {
    for (const [m, p] of [['GET', '/api/llm'], ['POST', '/api/llm'], ['GET', `/api/llm/${randomUUID()}`], ['POST', `/api/llm/${randomUUID()}/re-resolve`]] as const) {
      const r = await t.request(m, p, m === 'GET' ? {} : { body: {} });
      assert.deepEqual([r.status, r.body], [401, { error: 'Not authenticated' }], `${m} ${p}`);
    }
  });
});

describe('GET /api/llm and /api/llm/:id', () => {
  test('lists only the caller\'s proxies (oldest first), without pin or key', async () => {
    const u = await t.createUser();
    const a = await createLlm(u, { name: 'a', providerKey: PROVIDER_KEY });
    const b = await createLlm(u, { name: 'b', provider: 'anthropic' });
    await createLlm(await t.createUser(), { name: 'other' });
    const r = await t.request('GET', '/api/llm', { token: u.pat });
    assert.equal(r.status, 200);
    const oldestFirst = (x: { id: string; createdAt: number }, y: { id: string; createdAt: number }) => x.createdAt - y.createdAt || (x.id < y.id ? -1 : 1);
    assert.deepEqual(r.body.proxies, [a, b].sort(oldestFirst), 'oldest first; ties in the same second by id');
    assert.ok(!r.text.includes(PROVIDER_KEY));
  });

  test('the single record adds the DNS pin', async () => {
    const u = await t.createUser();
    const p = await createLlm(u, { providerKey: PROVIDER_KEY });
    const r = await t.request('GET', `/api/llm/${p.id}`, { token: u.pat });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { ...p, pin: { hostname: '127.0.0.1', ip: '127.0.0.1', port: 9101 } });
    assert.ok(!r.text.includes(PROVIDER_KEY));
    assert.ok(!/providerKey|provider_key/.test(r.text));
  });
});

describe('PATCH /api/llm/:id', () => {
  test('a provider change swaps upstreamUrl, the gateway upstream and the pin', async () => {
    const u = await t.createUser();
    const p = await createLlm(u);
    const r = await t.request('PATCH', `/api/llm/${p.id}`, { token: u.pat, body: { provider: 'anthropic' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.provider, 'anthropic');
    assert.equal(r.body.upstreamUrl, ANTHROPIC);
    assert.equal(r.body.name, 'chat');
    const g = snapshotProxy(p.id)!;
    assert.equal(g.provider, 'anthropic');
    assert.equal(g.upstreamUrl, ANTHROPIC);
    assert.deepEqual(g.pin, { hostname: '127.0.0.1', ip: '127.0.0.1', port: 9102 });
    const got = await t.request('GET', `/api/llm/${p.id}`, { token: u.pat });
    assert.deepEqual(got.body.pin, { hostname: '127.0.0.1', ip: '127.0.0.1', port: 9102 });
  });

  test('a new providerKey takes effect in the gateway without restart and is never returned', async () => {
    const u = await t.createUser();
    const p = await createLlm(u, { providerKey: PROVIDER_KEY });
    const NEW_KEY = 'sk-rotated-FEDCBA9876543210';
    const r = await t.request('PATCH', `/api/llm/${p.id}`, { token: u.pat, body: { providerKey: NEW_KEY } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, p);
    assert.ok(!r.text.includes(NEW_KEY) && !r.text.includes(PROVIDER_KEY));
    assert.equal(snapshotProxy(p.id)!.providerKey, NEW_KEY);
    const cleared = await t.request('PATCH', `/api/llm/${p.id}`, { token: u.pat, body: { providerKey: null } });
    assert.equal(cleared.status, 200);
    assert.equal(snapshotProxy(p.id)!.providerKey, undefined);
    for (const path of ['/api/llm', `/api/llm/${p.id}`]) {
      const g = await t.request('GET', path, { token: u.pat });
      assert.ok(!g.text.includes(NEW_KEY) && !g.text.includes(PROVIDER_KEY));
    }
  });

  test('auth changes reach the gateway plugin; null goes back to client keys', async () => {
    const u = await t.createUser();
    const p = await createLlm(u);
    const jwks = await rsaJwks();
    const auth = { mode: 'jwt', ...PINS, jwksJson: jwks, clockSkewS: 5 };
    let r = await t.request('PATCH', `/api/llm/${p.id}`, { token: u.pat, body: { auth } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.auth, auth);
    assert.deepEqual(snapshotProxy(p.id)!.auth, auth);
    const [plugin] = await t.app.services.db.query<{ auth: unknown }>('SELECT p.auth FROM gateway_plugins p JOIN gateway_services s ON s.id = p.service_id WHERE s.proxy_id = $1', [p.id]);
    assert.equal((plugin!.auth as { mode: string }).mode, 'jwt');
    r = await t.request('PATCH', `/api/llm/${p.id}`, { token: u.pat, body: { auth: null } });
    assert.equal(r.body.auth, null);
    assert.deepEqual(snapshotProxy(p.id)!.auth, { mode: 'svc_api_key', clockSkewS: 30 });
  });

  test('name, models, logging and budget change together; {} changes nothing', async () => {
    const u = await t.createUser();
    const p = await createLlm(u, { budget: { period: 'daily', capUsd: 1, hardBlock: true } });
    const r = await t.request('PATCH', `/api/llm/${p.id}`, {
      token: u.pat, body: { name: 'renamed', allowedModels: ['gpt-x'], defaultModel: 'gpt-x', logConversations: true, budget: { period: 'weekly', capUsd: 0 } },
    });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { ...p, name: 'renamed', allowedModels: ['gpt-x'], defaultModel: 'gpt-x', logConversations: true, budget: { period: 'weekly', capUsd: 0, hardBlock: false } });
    const g = snapshotProxy(p.id)!;
    assert.equal(g.name, 'renamed');
    assert.deepEqual(g.budget, { period: 'weekly', capUsd: 0, hardBlock: false });
    assert.equal(g.logConversations, true);
    const same = await t.request('PATCH', `/api/llm/${p.id}`, { token: u.pat, body: {} });
    assert.deepEqual([same.status, same.body], [200, r.body]);
    const cleared = await t.request('PATCH', `/api/llm/${p.id}`, { token: u.pat, body: { budget: null, defaultModel: null, allowedModels: [] } });
    assert.deepEqual([cleared.body.budget, cleared.body.defaultModel, cleared.body.allowedModels], [null, null, []]);
    assert.equal(snapshotProxy(p.id)!.budget, null);
  });

  test('bad input is a 400 and changes nothing', async () => {
    const u = await t.createUser();
    const p = await createLlm(u, { allowedModels: ['a', 'b'], defaultModel: 'a', providerKey: PROVIDER_KEY });
    const cases: Array<[unknown, string]> = [
      [{ provider: 'openrouter' }, 'provider: must be one of openai, anthropic, gemini, mistral'],
      [{ upstreamUrl: 'https://evil.example' }, 'upstreamUrl: is derived from provider and cannot be set'],
      [{ name: '' }, 'name: is required'],
      [{ allowedModels: ['c'] }, 'defaultModel: must be one of allowedModels'],
      [{ defaultModel: 'z' }, 'defaultModel: must be one of allowedModels'],
      [{ budget: { period: 'daily', capUsd: -5 } }, 'budget.capUsd: must be >= 0'],
      [{ auth: { mode: 'jwt', ...PINS, jwksJson: 'not json' } }, 'auth.jwksJson: is not valid JSON'],
      [{ auth: { mode: 'jwt', issuer: 'https://idp.example', jwksJson: 'not json' } }, 'auth.audience: is required when mode is jwt'],
      [{ name: 'ok', providerKey: '' }, 'providerKey: must not be empty'],
    ];
    for (const [body, message] of cases) {
      const r = await t.request('PATCH', `/api/llm/${p.id}`, { token: u.pat, body });
      assert.deepEqual([r.status, r.body], [400, { error: message }], JSON.stringify(body));
    }
    const after = await t.request('GET', `/api/llm/${p.id}`, { token: u.pat });
    const { pin: _pin, ...record } = after.body;
    assert.deepEqual(record, p);
    assert.equal(snapshotProxy(p.id)!.providerKey, PROVIDER_KEY);
  });
});

describe('DELETE /api/llm/:id', () => {
  test('tears down gateway objects, strips llm:<id>: tags from every key, drops per-key budgets and the record', async () => {
    const u = await t.createUser();
    const p = await createLlm(u);
    const keep = await createLlm(u, { name: 'keep' });
    const k1 = await insertKey(u, ['name:k1', `llm:${p.id}:model:*`, `llm:${keep.id}:model:gpt`, 'custom']);
    await t.app.services.db.query('INSERT INTO key_budgets (llm_id, credential_id, period, cap_usd, hard_block, created_at) VALUES ($1,$2,$3,$4,$5,$6)', [p.id, k1, 'daily', 1, true, 1]);
    const state = t.app.services.state;
    await state.set(cacheKey(cacheToolPrefix(p.id, '*'), 'r0', 'shared', 'h1'), 'cached', 60_000);
    await state.set(cacheKey(cacheToolPrefix(keep.id, '*'), 'r0', 'shared', 'h1'), 'cached', 60_000);
    const r = await t.request('DELETE', `/api/llm/${p.id}`, { token: u.pat });
    assert.deepEqual([r.status, r.body], [200, { deleted: true }]);
    assert.equal(await state.get(cacheKey(cacheToolPrefix(p.id, '*'), 'r0', 'shared', 'h1')), undefined, 'the static cache of the proxy is dropped');
    assert.equal(await state.get(cacheKey(cacheToolPrefix(keep.id, '*'), 'r0', 'shared', 'h1')), 'cached');
    const [row] = await t.app.services.db.query<{ tags: string[] }>('SELECT tags FROM credentials WHERE id = $1', [k1]);
    assert.deepEqual(row!.tags, ['name:k1', `llm:${keep.id}:model:gpt`, 'custom']);
    const db = t.app.services.db;
    assert.deepEqual(await db.query('SELECT 1 FROM gateway_services WHERE proxy_id = $1', [p.id]), []);
    assert.deepEqual(await db.query('SELECT 1 FROM key_budgets WHERE llm_id = $1', [p.id]), []);
    assert.deepEqual(await db.query('SELECT 1 FROM llm_proxies WHERE id = $1', [p.id]), []);
    const snap = t.app.gateway!.store.current;
    assert.equal(snap.proxies.get(p.id), undefined);
    assert.equal(snap.hosts.get(p.proxyHost), undefined);
    assert.deepEqual(snap.credentialsByHash.size > 0 && [...snap.credentialsByHash.values()].find((c) => c.credentialId === k1)?.tags, ['name:k1', `llm:${keep.id}:model:gpt`, 'custom']);
    assert.ok(snapshotProxy(keep.id));
    for (const [m, path] of [['GET', `/api/llm/${p.id}`], ['DELETE', `/api/llm/${p.id}`], ['PATCH', `/api/llm/${p.id}`]] as const) {
      const again = await t.request(m, path, { token: u.pat, body: m === 'PATCH' ? {} : undefined });
      assert.deepEqual([again.status, again.body], [404, NOT_FOUND]);
    }
  });
});

describe('POST /api/llm/:id/re-resolve', () => {
  test('returns {pin} for the provider host', async () => {
    const u = await t.createUser();
    const p = await createLlm(u);
    const r = await t.request('POST', `/api/llm/${p.id}/re-resolve`, { token: u.pat });
    assert.deepEqual([r.status, r.body], [200, { pin: { hostname: '127.0.0.1', ip: '127.0.0.1', port: 9101 } }]);
  });
});

describe('tenant isolation', () => {
  test('another user\'s id and malformed ids are 404 LLM proxy not found on every route, and nothing changes', async () => {
    const owner = await t.createUser();
    const intruder = await t.createUser();
    const p = await createLlm(owner, { providerKey: PROVIDER_KEY });
    const ids = [p.id, randomUUID(), 'not-a-uuid', '1', p.id.toUpperCase().replace(/-/g, '')];
    for (const id of ids) {
      const e = encodeURIComponent(id);
      const cases: Array<[string, string, unknown]> = [
        ['GET', `/api/llm/${e}`, undefined],
        ['PATCH', `/api/llm/${e}`, { name: 'pwned' }],
        ['PATCH', `/api/llm/${e}`, { provider: 'nope' }],
        ['DELETE', `/api/llm/${e}`, undefined],
        ['POST', `/api/llm/${e}/re-resolve`, undefined],
        ['GET', `/api/llm/${e}/keys`, undefined],
        ['PUT', `/api/llm/${e}/keys/${randomUUID()}/budget`, { period: 'daily', capUsd: 1 }],
        ['DELETE', `/api/llm/${e}/keys/${randomUUID()}/budget`, undefined],
      ];
      for (const [m, path, body] of cases) {
        const r = await t.request(m, path, { token: intruder.pat, body });
        assert.deepEqual([r.status, r.body], [404, NOT_FOUND], `${m} ${path}`);
      }
    }
    const list = await t.request('GET', '/api/llm', { token: intruder.pat });
    assert.deepEqual(list.body, { proxies: [] });
    const mine = await t.request('GET', `/api/llm/${p.id}`, { token: owner.pat });
    assert.equal(mine.body.name, 'chat');
    assert.equal(snapshotProxy(p.id)!.providerKey, PROVIDER_KEY);
  });
});

describe('provider hosts without an override', () => {
  test('public bases are pinned through the SSRF guard; an unresolvable host leaves pin null and re-resolve answers 502', async () => {
    let answer: string[] | Error = new Error('ENOTFOUND');
    const app = await startTestApp({
      strictUpstreams: true,
      lookup: async (h) => {
        assert.equal(h, 'api.mistral.ai');
        if (answer instanceof Error) throw answer;
        return answer;
      },
    });
    try {
      const u = await app.createUser();
      const created = await app.request('POST', '/api/llm', { token: u.pat, body: { name: 'm', provider: 'mistral' } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.upstreamUrl, 'https://api.mistral.ai');
      const id = created.body.id;
      assert.equal((await app.request('GET', `/api/llm/${id}`, { token: u.pat })).body.pin, null);
      let r = await app.request('POST', `/api/llm/${id}/re-resolve`, { token: u.pat });
      assert.deepEqual([r.status, r.body], [502, { error: 'Could not pin the provider host: host api.mistral.ai does not resolve' }]);
      answer = ['93.184.216.34'];
      r = await app.request('POST', `/api/llm/${id}/re-resolve`, { token: u.pat });
      assert.deepEqual([r.status, r.body], [200, { pin: { hostname: 'api.mistral.ai', ip: '93.184.216.34', port: 443 } }]);
      assert.deepEqual(app.app.gateway!.store.current.proxies.get(id)!.pin, { hostname: 'api.mistral.ai', ip: '93.184.216.34', port: 443 });
      // Rebinding: a later private answer is refused and the old pin stays.
      answer = ['10.0.0.7'];
      r = await app.request('POST', `/api/llm/${id}/re-resolve`, { token: u.pat });
      assert.deepEqual([r.status, r.body], [502, { error: 'Could not pin the provider host: host resolves to a private address (10.0.0.7)' }]);
      assert.equal((await app.request('GET', `/api/llm/${id}`, { token: u.pat })).body.pin.ip, '93.184.216.34');
    } finally {
      await app.close();
    }
  });
});
