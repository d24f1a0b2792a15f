// Per-key budget configuration through the HTTP API: GET /api/llm/:id/keys, PUT and DELETE
// /api/llm/:id/keys/:credId/budget, their messages, the gateway snapshot and tenant isolation.
import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { maskKey, sha256Hex } from '../../crypto/tokens.ts';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';

let t: TestApp;
before(async () => { t = await startTestApp({ env: { TOLLGATE_PROVIDER_BASE_URL_OPENAI: 'http://127.0.0.1:9201' } }); });
after(async () => { await t.close(); });

const KEY_NOT_FOUND = { error: 'Key not found' };

async function createLlm(u: TestUser): Promise<string> {
  const r = await t.request('POST', '/api/llm', { token: u.pat, body: { name: 'chat', provider: 'openai' } });
  assert.equal(r.status, 201, r.text);
  return r.body.id;
}

/** A client key row (the keys API is built elsewhere; these routes only read credentials). */
async function insertKey(u: TestUser, tags: string[], createdAt = 1): Promise<{ id: string; hash: string }> {
  const id = randomUUID();
  const hash = sha256Hex(randomUUID());
  await t.app.services.db.query(
    'INSERT INTO credentials (id, consumer_id, key_hash, key_prefix, tags, is_pat, created_at) VALUES ($1,$2,$3,$4,$5,false,$6)',
    [id, u.consumerId, hash, 'tgk_ab', tags, createdAt],
  );
  return { id, hash };
}

async function patId(u: TestUser): Promise<string> {
  const [row] = await t.app.services.db.query<{ id: string }>('SELECT id FROM credentials WHERE consumer_id = $1 AND is_pat', [u.consumerId]);
  return row!.id;
}

function keyBudgetsInGateway(llmId: string) {
  const p = t.app.gateway!.store.current.proxies.get(llmId);
  assert.equal(p?.kind, 'llm');
  return p.kind === 'llm' ? p.keyBudgets : {};
}

const links = (llmId: string, credId: string) => ({
  budget: `/api/llm/${llmId}/keys/${credId}/budget`,
  budgetReset: `/api/llm/${llmId}/keys/${credId}/budget/reset`,
  usageDaily: `/api/llm/${llmId}/keys/${credId}/usage/daily`,
  usageHistory: `/api/llm/${llmId}/keys/${credId}/usage/history`,
});

describe('GET /api/llm/:id/keys', () => {
  test('lists the caller\'s keys that have a tag for the proxy or a cap on it, never the PAT or others\' keys', async () => {
    const u = await t.createUser();
    const other = await t.createUser();
    const llm = await createLlm(u);
    const second = await createLlm(u);
    const tagged = await insertKey(u, ['name:bot', `llm:${llm}:model:gpt-4o`, `llm:${llm}:model:gpt-4o-mini`, `llm:${second}:model:*`], 10);
    const capped = await insertKey(u, ['name:capped', `llm:${second}:model:*`], 20);
    await insertKey(u, ['name:unrelated', `llm:${second}:model:*`], 30);
    await insertKey(other, [`llm:${llm}:model:*`]); // a forged tag on someone else's key does not make it ours
    const put = await t.request('PUT', `/api/llm/${llm}/keys/${capped.id}/budget`, { token: u.pat, body: { period: 'daily', capUsd: 2 } });
    assert.equal(put.status, 200, put.text);
    const r = await t.request('GET', `/api/llm/${llm}/keys`, { token: u.pat });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      keys: [
        { credentialId: tagged.id, name: 'bot', key: maskKey('tgk_ab', tagged.hash), models: ['gpt-4o', 'gpt-4o-mini'], budget: null, createdAt: 10, links: links(llm, tagged.id) },
        { credentialId: capped.id, name: 'capped', key: maskKey('tgk_ab', capped.hash), models: [], budget: { period: 'daily', capUsd: 2, hardBlock: false }, createdAt: 20, links: links(llm, capped.id) },
      ],
    });
    assert.ok(!r.text.includes(await patId(u)));
    const empty = await t.request('GET', `/api/llm/${await createLlm(u)}/keys`, { token: u.pat });
    assert.deepEqual(empty.body, { keys: [] });
  });
});

describe('GET /api/llm/:id/keys/:credId/budget', () => {
  test('answers one key as the listing shows it, through the typed client; a key the listing leaves out is 404', async () => {
    const u = await t.createUser();
    const llm = await createLlm(u);
    const tagged = await insertKey(u, [`llm:${llm}:model:gpt-4o`, 'name:bot']);
    const capped = await insertKey(u, []);
    const unrelated = await insertKey(u, ['mcp:x:tool:*']);
    await t.request('PUT', `/api/llm/${llm}/keys/${capped.id}/budget`, { token: u.pat, body: { period: 'daily', capUsd: 2 } });
    const listed = (await t.request('GET', `/api/llm/${llm}/keys`, { token: u.pat })).body.keys;
    const api = t.client(u.pat);
    for (const k of [tagged, capped]) {
      const r = await api.call('GET /api/llm/:id/keys/:credId/budget', { params: { id: llm, credId: k.id } });
      assert.ok(r.ok, JSON.stringify(r));
      assert.deepEqual(r.body, listed.find((e: { credentialId: string }) => e.credentialId === k.id));
    }
    const r = await api.call('GET /api/llm/:id/keys/:credId/budget', { params: { id: llm, credId: unrelated.id } });
    assert.deepEqual(r.ok ? r : [r.error.status, r.error.message], [404, 'Key not found']);
  });
});

describe('PUT /api/llm/:id/keys/:credId/budget', () => {
  test('creates, then replaces, the per-key cap and the gateway enforces the new config', async () => {
    const u = await t.createUser();
    const llm = await createLlm(u);
    const k = await insertKey(u, ['name:ci', `llm:${llm}:model:*`]);
    let r = await t.request('PUT', `/api/llm/${llm}/keys/${k.id}/budget`, { token: u.pat, body: { period: 'weekly', capUsd: 5, hardBlock: true } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { credentialId: k.id, name: 'ci', key: maskKey('tgk_ab', k.hash), models: ['*'], budget: { period: 'weekly', capUsd: 5, hardBlock: true }, createdAt: 1, links: links(llm, k.id) });
    assert.deepEqual(keyBudgetsInGateway(llm), { [k.id]: { period: 'weekly', capUsd: 5, hardBlock: true } });
    r = await t.request('PUT', `/api/llm/${llm}/keys/${k.id}/budget`, { token: u.pat, body: { period: 'fixed', capUsd: 0.25 } });
    assert.deepEqual(r.body.budget, { period: 'fixed', capUsd: 0.25, hardBlock: false });
    assert.deepEqual(keyBudgetsInGateway(llm), { [k.id]: { period: 'fixed', capUsd: 0.25, hardBlock: false } });
    const rows = await t.app.services.db.query('SELECT period FROM key_budgets WHERE llm_id = $1', [llm]);
    assert.equal(rows.length, 1);
  });

  test('a key without a tag for the proxy can still be capped in advance', async () => {
    const u = await t.createUser();
    const llm = await createLlm(u);
    const k = await insertKey(u, ['name:later']);
    const r = await t.request('PUT', `/api/llm/${llm}/keys/${k.id}/budget`, { token: u.pat, body: { period: 'monthly', capUsd: 100 } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.models, []);
    const list = await t.request('GET', `/api/llm/${llm}/keys`, { token: u.pat });
    assert.deepEqual(list.body.keys.map((e: { credentialId: string }) => e.credentialId), [k.id]);
  });

  const invalid: Array<[string, unknown, string]> = [
    ['missing period', { capUsd: 1 }, 'period: is required'],
    ['unknown period', { period: 'yearly', capUsd: 1 }, 'period: must be one of fixed, daily, weekly, monthly'],
    ['missing capUsd', { period: 'daily' }, 'capUsd: is required'],
    ['negative capUsd', { period: 'daily', capUsd: -0.01 }, 'capUsd: must be >= 0'],
    ['huge capUsd', { period: 'daily', capUsd: 1e12 }, 'capUsd: must be <= 1000000000'],
    ['string hardBlock', { period: 'daily', capUsd: 1, hardBlock: 'yes' }, 'hardBlock: must be a boolean'],
  ];
  for (const [what, body, message] of invalid) {
    test(`400 for ${what}, and the stored cap is unchanged`, async () => {
      const u = await t.createUser();
      const llm = await createLlm(u);
      const k = await insertKey(u, [`llm:${llm}:model:*`]);
      await t.request('PUT', `/api/llm/${llm}/keys/${k.id}/budget`, { token: u.pat, body: { period: 'daily', capUsd: 3 } });
      const r = await t.request('PUT', `/api/llm/${llm}/keys/${k.id}/budget`, { token: u.pat, body });
      assert.deepEqual([r.status, r.body], [400, { error: message }]);
      assert.deepEqual(keyBudgetsInGateway(llm), { [k.id]: { period: 'daily', capUsd: 3, hardBlock: false } });
    });
  }

  test('400 Invalid JSON body', async () => {
    const u = await t.createUser();
    const llm = await createLlm(u);
    const k = await insertKey(u, []);
    const r = await t.request('PUT', `/api/llm/${llm}/keys/${k.id}/budget`, { token: u.pat, raw: '{', headers: { 'content-type': 'application/json' } });
    assert.deepEqual([r.status, r.body], [400, { error: 'Invalid JSON body' }]);
  });
});

describe('DELETE /api/llm/:id/keys/:credId/budget', () => {
  test('removes the cap (idempotent) and the gateway drops it', async () => {
    const u = await t.createUser();
    const llm = await createLlm(u);
    const k = await insertKey(u, [`llm:${llm}:model:*`]);
    await t.request('PUT', `/api/llm/${llm}/keys/${k.id}/budget`, { token: u.pat, body: { period: 'daily', capUsd: 1, hardBlock: true } });
    let r = await t.request('DELETE', `/api/llm/${llm}/keys/${k.id}/budget`, { token: u.pat });
    assert.deepEqual([r.status, r.body], [200, { deleted: true }]);
    assert.deepEqual(keyBudgetsInGateway(llm), {});
    r = await t.request('DELETE', `/api/llm/${llm}/keys/${k.id}/budget`, { token: u.pat });
    assert.deepEqual([r.status, r.body], [200, { deleted: false }]);
    const list = await t.request('GET', `/api/llm/${llm}/keys`, { token: u.pat });
    assert.equal(list.body.keys[0].budget, null);
  });
});

describe('credential checks', () => {
  test('the PAT, another user\'s key, an unknown and a malformed id are 404 Key not found', async () => {
    const u = await t.createUser();
    const other = await t.createUser();
    const llm = await createLlm(u);
    const foreign = await insertKey(other, [`llm:${llm}:model:*`]);
    for (const credId of [await patId(u), foreign.id, randomUUID(), 'nope', '%00']) {
      for (const m of ['GET', 'PUT', 'DELETE'] as const) {
        const r = await t.request(m, `/api/llm/${llm}/keys/${encodeURIComponent(credId)}/budget`, { token: u.pat, body: m === 'PUT' ? { period: 'daily', capUsd: 1 } : undefined });
        assert.deepEqual([r.status, r.body], [404, KEY_NOT_FOUND], `${m} ${credId}`);
      }
    }
    assert.deepEqual(await t.app.services.db.query('SELECT 1 FROM key_budgets WHERE llm_id = $1', [llm]), []);
  });

  test('the proxy is checked first: another user\'s proxy is 404 LLM proxy not found even for the caller\'s own key', async () => {
    const u = await t.createUser();
    const other = await t.createUser();
    const theirs = await createLlm(other);
    const mine = await insertKey(u, []);
    const r = await t.request('PUT', `/api/llm/${theirs}/keys/${mine.id}/budget`, { token: u.pat, body: { period: 'daily', capUsd: 1 } });
    assert.deepEqual([r.status, r.body], [404, { error: 'LLM proxy not found' }]);
  });

  test('deleting the key or the proxy removes its caps', async () => {
    const u = await t.createUser();
    const llm = await createLlm(u);
    const k = await insertKey(u, [`llm:${llm}:model:*`]);
    await t.request('PUT', `/api/llm/${llm}/keys/${k.id}/budget`, { token: u.pat, body: { period: 'daily', capUsd: 1 } });
    await t.request('DELETE', `/api/llm/${llm}`, { token: u.pat });
    assert.deepEqual(await t.app.services.db.query('SELECT 1 FROM key_budgets WHERE credential_id = $1', [k.id]), []);
  });
});
