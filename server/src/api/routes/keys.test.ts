// Client API keys through HTTP (spec "Client API keys", "Client API key", Errors, Limits).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sha256Hex } from '../../crypto/tokens.ts';
import { setConsumerTags } from '../../identity/users.ts';
import { stripProxyTags } from '../../proxies/gateway-objects.ts';
import { insertLlmFixture, insertMcpFixture } from '@tollgate/testkit/fixtures.ts';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';

const INVALID_NAME = 'Invalid name — use letters, numbers, - and _ only';

let t: TestApp;
before(async () => { t = await startTestApp(); });
after(async () => { await t.close(); });

interface KeyRec { id: string; key: string; tags: string[]; created_at: number; ttl: null }

async function listKeys(u: TestUser): Promise<KeyRec[]> {
  const r = await t.request('GET', '/api/keys', { token: u.pat });
  assert.equal(r.status, 200);
  return r.body.keys;
}

async function storedTags(id: string): Promise<string[] | undefined> {
  const rows = await t.app.services.db.query<{ tags: string[] }>('SELECT tags FROM credentials WHERE id = $1', [id]);
  return rows[0]?.tags;
}

async function patId(u: TestUser): Promise<string> {
  const rows = await t.app.services.db.query<{ id: string }>('SELECT id FROM credentials WHERE consumer_id = $1 AND is_pat', [u.consumerId]);
  return rows[0]!.id;
}

function gatewayCredential(plaintext: string) {
  return t.app.gateway!.store.current.credentialsByHash.get(sha256Hex(plaintext));
}

async function createKey(u: TestUser, body: Record<string, unknown>) {
  const r = await t.request('POST', '/api/keys', { token: u.pat, body });
  assert.equal(r.status, 201, r.text);
  return r.body.key as { id: string; key: string; tags: string[] };
}

test('POST /api/keys returns 201 with the plaintext once, and the gateway knows the key at once', async () => {
  const u = await t.createUser();
  const r = await t.request('POST', '/api/keys', { token: u.pat, body: { name: 'ci-bot' } });
  assert.equal(r.status, 201);
  assert.deepEqual(Object.keys(r.body).sort(), ['key', 'message']);
  assert.equal(typeof r.body.message, 'string');
  const { id, key, tags } = r.body.key;
  assert.match(id, /^[0-9a-f-]{36}$/);
  assert.match(key, /^tgk_[A-Za-z0-9_-]{40,}$/);
  assert.deepEqual(tags, ['name:ci-bot']);
  const cred = gatewayCredential(key);
  assert.ok(cred, 'the gateway snapshot holds the new key when create returns');
  assert.equal(cred.isPat, false);
  assert.deepEqual(cred.tags, ['name:ci-bot']);
  const rows = await t.app.services.db.query<{ key_hash: string; key_prefix: string }>('SELECT key_hash, key_prefix FROM credentials WHERE id = $1', [id]);
  assert.deepEqual(rows[0], { key_hash: sha256Hex(key), key_prefix: key.slice(0, 6) }, 'only the hash and the first 6 characters are stored');
});

test('GET /api/keys masks keys (6 chars, ..., last 4 of the SHA-256) and filters out the PAT', async () => {
  const u = await t.createUser();
  const a = await createKey(u, { name: 'a' });
  const b = await createKey(u, { name: 'b' });
  const keys = await listKeys(u);
  assert.equal(keys.length, 2, 'the PAT is not listed');
  const byId = new Map(keys.map((k) => [k.id, k]));
  for (const k of [a, b]) {
    const rec = byId.get(k.id)!;
    assert.equal(rec.key, `${k.key.slice(0, 6)}...${sha256Hex(k.key).slice(-4)}`);
    assert.deepEqual(rec.tags, k.tags);
    assert.equal(rec.ttl, null);
    assert.equal(typeof rec.created_at, 'number');
    assert.ok(Math.abs(rec.created_at - Date.now() / 1000) < 60);
  }
  assert.ok(!JSON.stringify(keys).includes(await patId(u)), 'the PAT id is not listed');
  assert.ok(!JSON.stringify(keys).includes(u.pat.slice(0, 12)));
});

test('a fresh user lists no keys', async () => {
  const u = await t.createUser();
  assert.deepEqual(await listKeys(u), []);
});

test('missing name returns 400 name is required', async () => {
  const u = await t.createUser();
  for (const body of [{}, { name: '' }, { name: null }, { mcpPermissions: [] }]) {
    const r = await t.request('POST', '/api/keys', { token: u.pat, body });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { error: 'name is required' });
  }
  assert.deepEqual(await listKeys(u), []);
});

test('a bad name returns 400 with the spec message', async () => {
  const u = await t.createUser();
  for (const name of ['has space', 'colon:name', 'slash/x', 'ünicode', 42]) {
    const r = await t.request('POST', '/api/keys', { token: u.pat, body: { name } });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { error: INVALID_NAME });
  }
  assert.deepEqual(await listKeys(u), []);
});

test('a body that is not JSON returns 400 Invalid JSON body', async () => {
  const u = await t.createUser();
  const r = await t.request('POST', '/api/keys', { token: u.pat, raw: '{name', headers: { 'content-type': 'application/json' } });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { error: 'Invalid JSON body' });
  const r2 = await t.request('POST', '/api/keys', { token: u.pat, raw: '{"name":"x"}' });
  assert.equal(r2.status, 400);
  assert.deepEqual(r2.body, { error: 'Invalid JSON body' });
});

test('without a credential every key endpoint returns 401 Not authenticated', async () => {
  for (const [m, p] of [['GET', '/api/keys'], ['POST', '/api/keys'], ['PATCH', `/api/keys/${randomUUID()}`], ['DELETE', `/api/keys/${randomUUID()}`]] as const) {
    const r = await t.request(m, p, m === 'GET' ? {} : { body: {} });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { error: 'Not authenticated' });
  }
});

test('GET /api/keys/:id answers one key as the listing shows it; the PAT, another user\'s, unknown and malformed ids are 404', async () => {
  const u = await t.createUser();
  const other = await t.createUser();
  const mine = await createKey(u, { name: 'one' });
  const theirs = await createKey(other, { name: 'theirs' });
  const api = t.client(u.pat);
  const one = await api.call('GET /api/keys/:id', { params: { id: mine.id } });
  assert.ok(one.ok, JSON.stringify(one));
  assert.deepEqual(one.body, (await listKeys(u)).find((k) => k.id === mine.id));
  assert.doesNotMatch(one.body.key, new RegExp(mine.key), 'masked, never the plaintext');
  for (const id of [await patId(u), theirs.id, randomUUID(), 'nope', '../keys']) {
    const r = await api.call('GET /api/keys/:id', { params: { id } });
    assert.deepEqual(r.ok ? r : r.error.status + r.error.message, '404Key not found', id);
  }
});

test('a client key is not a credential for the management API', async () => {
  const u = await t.createUser();
  const k = await createKey(u, { name: 'k' });
  const r = await t.request('GET', '/api/keys', { token: k.key });
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, { error: 'Invalid personal access token' });
});

test('tags are built on the server from MCP and LLM permissions, custom tags pass through', async () => {
  const u = await t.createUser();
  const mcp = await insertMcpFixture(t.app.services, u.userId, { tools: ['search', 'fetch', 'delete'] });
  const mcp2 = await insertMcpFixture(t.app.services, u.userId, { tools: ['x'] });
  const llm = await insertLlmFixture(t.app.services, u.userId);
  await putResourceRule(u, mcp.id, 'res-1');
  const k = await createKey(u, {
    name: 'full',
    mcpPermissions: [{ id: mcp.id, tools: ['search', 'fetch'], resources: ['res-1'] }, { id: mcp2.id.toUpperCase(), tools: ['*'], resources: ['*'] }],
    llmPermissions: [{ id: llm.id, models: ['gpt-4o-mini', 'gpt-4o'] }],
    customTags: ['team-a', 'env:prod'],
  });
  assert.deepEqual(k.tags, [
    'name:full', 'private:permissions:mcp',
    `mcp:${mcp.id}:tool:search`, `mcp:${mcp.id}:tool:fetch`, `mcp:${mcp.id}:resource:res-1`,
    `mcp:${mcp2.id}:tool:*`, `mcp:${mcp2.id}:resource:*`,
    `llm:${llm.id}:model:gpt-4o-mini`, `llm:${llm.id}:model:gpt-4o`,
    'team-a', 'env:prod',
  ]);
  assert.deepEqual(gatewayCredential(k.key)?.tags, k.tags);
  const w = await createKey(u, { name: 'llm-any', llmPermissions: [{ id: llm.id, models: ['*'] }] });
  assert.deepEqual(w.tags, ['name:llm-any', `llm:${llm.id}:model:*`], 'no MCP flag without an MCP permission');
});

test('another user\'s or a malformed MCP id returns 404 MCP server not found and stores nothing', async () => {
  const owner = await t.createUser();
  const u = await t.createUser();
  const theirs = await insertMcpFixture(t.app.services, owner.userId, { tools: ['search'] });
  for (const id of [theirs.id, 'not-a-uuid', randomUUID(), "1' OR '1'='1"]) {
    const r = await t.request('POST', '/api/keys', { token: u.pat, body: { name: 'k', mcpPermissions: [{ id, tools: ['search'] }] } });
    assert.equal(r.status, 404, id);
    assert.deepEqual(r.body, { error: 'MCP server not found' });
  }
  assert.deepEqual(await listKeys(u), []);
});

test('another user\'s or a malformed LLM id returns 404 LLM proxy not found and stores nothing', async () => {
  const owner = await t.createUser();
  const u = await t.createUser();
  const theirs = await insertLlmFixture(t.app.services, owner.userId);
  const mine = await insertMcpFixture(t.app.services, u.userId, { tools: ['a'] });
  for (const id of [theirs.id, 'zzz', randomUUID()]) {
    const r = await t.request('POST', '/api/keys', {
      token: u.pat, body: { name: 'k', mcpPermissions: [{ id: mine.id, tools: ['a'] }], llmPermissions: [{ id, models: ['*'] }] },
    });
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, { error: 'LLM proxy not found' });
  }
  assert.deepEqual(await listKeys(u), []);
});

test('a tool missing from the discovered catalog returns 400 tools[N] not found on this MCP server', async () => {
  const u = await t.createUser();
  const mcp = await insertMcpFixture(t.app.services, u.userId, { tools: ['search', 'fetch'] });
  const empty = await insertMcpFixture(t.app.services, u.userId, { tools: [] });
  let r = await t.request('POST', '/api/keys', { token: u.pat, body: { name: 'k', mcpPermissions: [{ id: mcp.id, tools: ['search', 'nope', 'fetch'] }] } });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { error: 'tools[1] not found on this MCP server' });
  r = await t.request('POST', '/api/keys', { token: u.pat, body: { name: 'k', mcpPermissions: [{ id: mcp.id, tools: ['search'] }, { id: empty.id, tools: ['search'] }] } });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { error: 'tools[0] not found on this MCP server' });
  assert.deepEqual(await listKeys(u), []);
  // `*` needs no catalog: it keeps meaning "every tool" after a later discovery.
  const k = await createKey(u, { name: 'k', mcpPermissions: [{ id: empty.id, tools: ['*'] }] });
  assert.deepEqual(k.tags, ['name:k', 'private:permissions:mcp', `mcp:${empty.id}:tool:*`]);
});

async function putResourceRule(u: TestUser, mcpId: string, resourceId: string): Promise<void> {
  const rule = { rule_type: 'mcp_resource', tools: ['*'], resource_id: resourceId, uri: `doc://${resourceId}`, resource_name: resourceId, content: 'x' };
  const r = await t.request('PUT', `/api/mcp/${mcpId}/rules`, { token: u.pat, body: { rules: [rule] } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

async function postResource(u: TestUser, mcpId: string, uri: string): Promise<string> {
  const r = await t.request('POST', `/api/mcp/${mcpId}/resources`, { token: u.pat, body: { uri, name: uri, content: 'x' } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.id;
}

test('a resource the MCP server does not serve returns 400 resources[N] not found on this MCP server and stores nothing', async () => {
  const owner = await t.createUser();
  const u = await t.createUser();
  const theirMcp = await insertMcpFixture(t.app.services, owner.userId);
  const theirResource = await postResource(owner, theirMcp.id, 'doc://theirs');
  await putResourceRule(owner, theirMcp.id, 'their-rule');
  const mine = await insertMcpFixture(t.app.services, u.userId);
  const other = await insertMcpFixture(t.app.services, u.userId);
  const onOther = await postResource(u, other.id, 'doc://on-other');
  const k = await createKey(u, { name: 'k', mcpPermissions: [{ id: mine.id, tools: ['*'], resources: ['*'] }] });
  const before = await storedTags(k.id);
  // Another user's resource id or rule id, one of my own on another of my servers, an id nothing has, a uri.
  for (const rid of [theirResource, theirResource.toUpperCase(), 'their-rule', onOther, randomUUID(), 'doc://theirs']) {
    const body = { mcpPermissions: [{ id: mine.id, tools: ['*'], resources: ['*', rid] }] };
    let r = await t.request('POST', '/api/keys', { token: u.pat, body: { name: 'k2', ...body } });
    assert.equal(r.status, 400, rid);
    assert.deepEqual(r.body, { error: 'resources[1] not found on this MCP server' });
    r = await t.request('PATCH', `/api/keys/${k.id}`, { token: u.pat, body });
    assert.equal(r.status, 400, rid);
    assert.deepEqual(r.body, { error: 'resources[1] not found on this MCP server' });
  }
  assert.deepEqual((await listKeys(u)).map((x) => x.id), [k.id]);
  assert.deepEqual(await storedTags(k.id), before);
});

test('a resource is granted by its id on that server: an API resource (any case, stored in lower case) or an mcp_resource rule', async () => {
  const u = await t.createUser();
  const mcp = await insertMcpFixture(t.app.services, u.userId);
  const rid = await postResource(u, mcp.id, 'doc://readme');
  await putResourceRule(u, mcp.id, 'Guide');
  const k = await createKey(u, { name: 'k', mcpPermissions: [{ id: mcp.id, tools: [], resources: [rid.toUpperCase(), 'Guide'] }] });
  assert.deepEqual(k.tags, ['name:k', 'private:permissions:mcp', `mcp:${mcp.id}:resource:${rid}`, `mcp:${mcp.id}:resource:Guide`]);
  // A rule id matches exactly: the gateway compares it so.
  const r = await t.request('POST', '/api/keys', { token: u.pat, body: { name: 'k2', mcpPermissions: [{ id: mcp.id, tools: [], resources: ['guide'] }] } });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { error: 'resources[0] not found on this MCP server' });
});

test('customTags in a reserved namespace are rejected with 400 naming customTags[i] (raw-tag injection)', async () => {
  const owner = await t.createUser();
  const u = await t.createUser();
  const theirs = await insertMcpFixture(t.app.services, owner.userId, { tools: ['search'] });
  const theirLlm = await insertLlmFixture(t.app.services, owner.userId);
  const hostile = [
    `mcp:${theirs.id}:tool:*`, `llm:${theirLlm.id}:model:*`, 'svc:personal:token', 'private:permissions:mcp',
    'private:permissions:apikey:limit:1000', 'name:other', `MCP:${theirs.id}:tool:*`, ` llm:${theirLlm.id}:model:*`,
  ];
  for (const tag of hostile) {
    const r = await t.request('POST', '/api/keys', { token: u.pat, body: { name: 'k', customTags: ['fine', tag] } });
    assert.equal(r.status, 400, tag);
    assert.match(r.body.error, /^customTags\[1\]: /);
  }
  assert.deepEqual(await listKeys(u), []);
});

test('quota: at the limit from private:permissions:apikey:limit:N the next key gets 403; the PAT is not counted', async () => {
  const u = await t.createUser();
  const v = await t.app.services.db.tx((q) => setConsumerTags(q, u.consumerId, ['private:permissions:user', 'private:permissions:apikey:limit:2']));
  await t.app.services.configChanged(v);
  await createKey(u, { name: 'one' });
  await createKey(u, { name: 'two' });
  const r = await t.request('POST', '/api/keys', { token: u.pat, body: { name: 'three' } });
  assert.equal(r.status, 403);
  assert.deepEqual(r.body, { error: 'API key limit reached (2/2). Contact an administrator to raise your quota.' });
  assert.equal((await listKeys(u)).length, 2);
  // Freeing a slot makes room again.
  const [first] = await listKeys(u);
  assert.equal((await t.request('DELETE', `/api/keys/${first!.id}`, { token: u.pat })).status, 200);
  await createKey(u, { name: 'three' });
});

test('quota: the default limit is 40 client keys', async () => {
  const u = await t.createUser();
  const rows = Array.from({ length: 40 }, (_, i) => [randomUUID(), u.consumerId, sha256Hex(`seed-${u.consumerId}-${i}`), 'tgk_xx', [`name:seed${i}`], 0]);
  await t.app.services.db.tx(async (q) => {
    for (const r of rows) await q.query('INSERT INTO credentials (id, consumer_id, key_hash, key_prefix, tags, is_pat, created_at) VALUES ($1,$2,$3,$4,$5,false,$6)', r);
  });
  const r = await t.request('POST', '/api/keys', { token: u.pat, body: { name: 'k41' } });
  assert.equal(r.status, 403);
  assert.deepEqual(r.body, { error: 'API key limit reached (40/40). Contact an administrator to raise your quota.' });
});

test('PATCH replaces the whole tag set and keeps the name tag; the gateway sees the new tags', async () => {
  const u = await t.createUser();
  const mcp = await insertMcpFixture(t.app.services, u.userId, { tools: ['search', 'fetch'] });
  const llm = await insertLlmFixture(t.app.services, u.userId);
  const k = await createKey(u, { name: 'k', mcpPermissions: [{ id: mcp.id, tools: ['search'] }], customTags: ['old'] });
  const r = await t.request('PATCH', `/api/keys/${k.id}`, { token: u.pat, body: { llmPermissions: [{ id: llm.id, models: ['gpt-4o'] }], customTags: ['new'] } });
  assert.equal(r.status, 200, r.text);
  const expected = ['name:k', `llm:${llm.id}:model:gpt-4o`, 'new'];
  assert.deepEqual(r.body.key.tags, expected);
  assert.equal(r.body.key.id, k.id);
  assert.equal(r.body.key.key, `${k.key.slice(0, 6)}...${sha256Hex(k.key).slice(-4)}`, 'PATCH returns the masked record, never the plaintext');
  assert.deepEqual(await storedTags(k.id), expected);
  assert.deepEqual(gatewayCredential(k.key)?.tags, expected);
  // An empty body is the full intended state "no permissions".
  const r2 = await t.request('PATCH', `/api/keys/${k.id}`, { token: u.pat, body: {} });
  assert.equal(r2.status, 200);
  assert.deepEqual(r2.body.key.tags, ['name:k']);
  // Sending the current name is accepted (infrastructure-as-code tools send the whole object); a new name is not.
  const r3 = await t.request('PATCH', `/api/keys/${k.id}`, { token: u.pat, body: { name: 'k', customTags: ['x'] } });
  assert.equal(r3.status, 200);
  assert.deepEqual(r3.body.key.tags, ['name:k', 'x']);
});

test('a failed PATCH returns 4xx and leaves the stored tags and the gateway unchanged', async () => {
  const owner = await t.createUser();
  const u = await t.createUser();
  const mine = await insertMcpFixture(t.app.services, u.userId, { tools: ['search'] });
  const theirs = await insertMcpFixture(t.app.services, owner.userId, { tools: ['search'] });
  const k = await createKey(u, { name: 'k', mcpPermissions: [{ id: mine.id, tools: ['search'] }], customTags: ['keep'] });
  const before = await storedTags(k.id);
  const cases: Array<[unknown, number, string | RegExp]> = [
    [{ mcpPermissions: [{ id: mine.id, tools: ['search', 'missing'] }] }, 400, 'tools[1] not found on this MCP server'],
    [{ mcpPermissions: [{ id: theirs.id, tools: ['search'] }] }, 404, 'MCP server not found'],
    [{ llmPermissions: [{ id: randomUUID(), models: ['*'] }] }, 404, 'LLM proxy not found'],
    [{ customTags: [`mcp:${theirs.id}:tool:*`] }, 400, /^customTags\[0\]: /],
    [{ mcpPermissions: 'all' }, 400, /^mcpPermissions: /],
    [{ name: 'renamed' }, 400, /^name: /],
    [[1, 2], 400, /expected object/],
  ];
  for (const [body, status, msg] of cases) {
    const r = await t.request('PATCH', `/api/keys/${k.id}`, { token: u.pat, body });
    assert.equal(r.status, status, JSON.stringify(body));
    if (typeof msg === 'string') assert.equal(r.body.error, msg);
    else assert.match(r.body.error, msg);
    assert.deepEqual(await storedTags(k.id), before);
  }
  const bad = await t.request('PATCH', `/api/keys/${k.id}`, { token: u.pat, raw: 'nope', headers: { 'content-type': 'application/json' } });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body, { error: 'Invalid JSON body' });
  assert.deepEqual(await storedTags(k.id), before);
  assert.deepEqual(gatewayCredential(k.key)?.tags, before);
});

test('PATCH of a key without a name tag returns 409; it can still be deleted', async () => {
  const u = await t.createUser();
  const id = randomUUID();
  await t.app.services.db.query('INSERT INTO credentials (id, consumer_id, key_hash, key_prefix, tags, is_pat, created_at) VALUES ($1,$2,$3,$4,$5,false,$6)',
    [id, u.consumerId, sha256Hex(`legacy-${id}`), 'tgk_le', ['team-a'], 1]);
  const r = await t.request('PATCH', `/api/keys/${id}`, { token: u.pat, body: { customTags: ['x'] } });
  assert.equal(r.status, 409);
  assert.deepEqual(r.body, { error: 'Key is missing a name tag — recreate it to change permissions' });
  assert.deepEqual(await storedTags(id), ['team-a']);
  const d = await t.request('DELETE', `/api/keys/${id}`, { token: u.pat });
  assert.equal(d.status, 200);
});

test('PATCH and DELETE on the PAT credential return 403 Cannot modify personal token', async () => {
  const u = await t.createUser();
  const pid = await patId(u);
  const p = await t.request('PATCH', `/api/keys/${pid}`, { token: u.pat, body: { customTags: ['x'] } });
  assert.equal(p.status, 403);
  assert.deepEqual(p.body, { error: 'Cannot modify personal token' });
  const d = await t.request('DELETE', `/api/keys/${pid}`, { token: u.pat });
  assert.equal(d.status, 403);
  assert.deepEqual(d.body, { error: 'Cannot modify personal token' });
  assert.deepEqual(await storedTags(pid), ['svc:personal:token']);
  assert.equal((await t.request('GET', '/api/keys', { token: u.pat })).status, 200, 'the PAT still works');
});

test('DELETE returns 200 Key deleted; the key is gone from storage and from the gateway; a second DELETE is 404', async () => {
  const u = await t.createUser();
  const k = await createKey(u, { name: 'gone' });
  const r = await t.request('DELETE', `/api/keys/${k.id}`, { token: u.pat });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { message: 'Key deleted' });
  assert.equal(await storedTags(k.id), undefined);
  assert.equal(gatewayCredential(k.key), undefined);
  const again = await t.request('DELETE', `/api/keys/${k.id}`, { token: u.pat });
  assert.equal(again.status, 404);
  assert.deepEqual(again.body, { error: 'Key not found' });
});

test('tenant isolation: another user gets 404 Key not found for every key id, and never sees the keys', async () => {
  const a = await t.createUser();
  const b = await t.createUser();
  const ka = await createKey(a, { name: 'a1' });
  const ka2 = await createKey(a, { name: 'a2' });
  const aPat = await patId(a);
  assert.deepEqual(await listKeys(b), []);
  for (const id of [ka.id, ka2.id, aPat]) {
    const p = await t.request('PATCH', `/api/keys/${id}`, { token: b.pat, body: { customTags: ['x'] } });
    assert.equal(p.status, 404, 'even the other user\'s PAT is just "not found"');
    assert.deepEqual(p.body, { error: 'Key not found' });
    const d = await t.request('DELETE', `/api/keys/${id}`, { token: b.pat });
    assert.equal(d.status, 404);
    assert.deepEqual(d.body, { error: 'Key not found' });
  }
  assert.equal((await listKeys(a)).length, 2);
  assert.deepEqual(await storedTags(ka.id), ['name:a1']);
});

test('a malformed key id returns 404 Key not found, never 500', async () => {
  const u = await t.createUser();
  for (const id of ['nope', '123', `${randomUUID()}x`, '%27%20OR%201%3D1', '%E0%A4%A']) {
    for (const m of ['PATCH', 'DELETE']) {
      const r = await t.request(m, `/api/keys/${id}`, { token: u.pat, body: {} });
      assert.equal(r.status, 404, `${m} ${id}`);
      assert.deepEqual(r.body, { error: 'Key not found' });
    }
  }
});

test('cascade strip on proxy delete leaves a key with zero permissions but valid and editable', async () => {
  const u = await t.createUser();
  const mcp = await insertMcpFixture(t.app.services, u.userId, { tools: ['search'] });
  const llm = await insertLlmFixture(t.app.services, u.userId);
  const k = await createKey(u, {
    name: 'orphan', mcpPermissions: [{ id: mcp.id, tools: ['search'], resources: ['*'] }], llmPermissions: [{ id: llm.id, models: ['*'] }], customTags: ['team'],
  });
  const s = t.app.services;
  const v = await s.db.tx(async (q) => {
    await stripProxyTags(q, 'mcp', mcp.id);
    await stripProxyTags(q, 'llm', llm.id);
    await q.query('DELETE FROM gateway_services WHERE proxy_id = ANY($1::uuid[])', [[mcp.id, llm.id]]);
    await q.query('DELETE FROM mcp_servers WHERE id = $1', [mcp.id]);
    await q.query('DELETE FROM llm_proxies WHERE id = $1', [llm.id]);
    const [row] = await q.query<{ version: number }>('UPDATE config_state SET version = version + 1 RETURNING version');
    return Number(row!.version);
  });
  await s.configChanged(v);
  const [rec] = await listKeys(u);
  assert.equal(rec!.id, k.id);
  assert.ok(!rec!.tags.some((tag) => tag.startsWith('mcp:') || tag.startsWith('llm:')), rec!.tags.join(','));
  assert.deepEqual(rec!.tags, ['name:orphan', 'private:permissions:mcp', 'team']);
  assert.ok(gatewayCredential(k.key), 'still a valid credential');
  // Re-granting on a deleted proxy is refused; clearing the permissions works.
  const r = await t.request('PATCH', `/api/keys/${k.id}`, { token: u.pat, body: { mcpPermissions: [{ id: mcp.id, tools: ['*'] }] } });
  assert.equal(r.status, 404);
  assert.deepEqual(r.body, { error: 'MCP server not found' });
  const ok = await t.request('PATCH', `/api/keys/${k.id}`, { token: u.pat, body: { customTags: ['team'] } });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body.key.tags, ['name:orphan', 'team']);
});

test('DELETE /api/mcp/:id and /api/llm/:id strip the proxy\'s tags from keys; the key keeps working elsewhere', async () => {
  const u = await t.createUser();
  const gone = await insertMcpFixture(t.app.services, u.userId, { tools: ['search'] });
  const kept = await insertMcpFixture(t.app.services, u.userId, { tools: ['search'] });
  const llm = await insertLlmFixture(t.app.services, u.userId);
  const k = await createKey(u, {
    name: 'multi', mcpPermissions: [{ id: gone.id, tools: ['*'] }, { id: kept.id, tools: ['search'] }], llmPermissions: [{ id: llm.id, models: ['*'] }],
  });
  assert.equal((await t.request('DELETE', `/api/mcp/${gone.id}`, { token: u.pat })).status, 200);
  assert.equal((await t.request('DELETE', `/api/llm/${llm.id}`, { token: u.pat })).status, 200);
  const expected = ['name:multi', 'private:permissions:mcp', `mcp:${kept.id}:tool:search`];
  assert.deepEqual((await listKeys(u))[0]!.tags, expected);
  assert.deepEqual(gatewayCredential(k.key)?.tags, expected);
});

test('quota holds under concurrent creates', async () => {
  const u = await t.createUser();
  const v = await t.app.services.db.tx((q) => setConsumerTags(q, u.consumerId, ['private:permissions:user', 'private:permissions:apikey:limit:3']));
  await t.app.services.configChanged(v);
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => t.request('POST', '/api/keys', { token: u.pat, body: { name: `c${i}` } })));
  assert.deepEqual(results.map((r) => r.status).sort(), [201, 201, 201, 403, 403, 403, 403, 403]);
  assert.equal((await listKeys(u)).length, 3);
});

test('granting a proxy while it is being deleted never leaves a dangling tag nor fails with 500', async () => {
  const u = await t.createUser();
  const k = await createKey(u, { name: 'racer' });
  for (let i = 0; i < 5; i++) {
    const mcp = await insertMcpFixture(t.app.services, u.userId, { tools: ['search'] });
    const [patch, del] = await Promise.all([
      t.request('PATCH', `/api/keys/${k.id}`, { token: u.pat, body: { mcpPermissions: [{ id: mcp.id, tools: ['search'] }] } }),
      t.request('DELETE', `/api/mcp/${mcp.id}`, { token: u.pat }),
    ]);
    assert.ok([200, 404].includes(patch.status), patch.text);
    assert.equal(del.status, 200, del.text);
    const tags = (await storedTags(k.id))!;
    assert.ok(!tags.some((tag) => tag.includes(mcp.id)), tags.join(','));
  }
});
