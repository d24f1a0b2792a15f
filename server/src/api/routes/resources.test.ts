// Synthetic MCP resources through the HTTP API: CRUD, uri uniqueness, validation, quota, global listing, and what
// the gateway receives.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { setConsumerTags } from '../../identity/users.ts';
import { DEFAULT_RESOURCE_LIMIT } from '@tollgate/contract';

let t: TestApp;
before(async () => { t = await startTestApp(); });
after(async () => { await t.close(); });

async function createMcp(u: TestUser, name = 'docs'): Promise<string> {
  const r = await t.request('POST', '/api/mcp', { token: u.pat, body: { name, url: 'http://127.0.0.1:9/mcp' } });
  assert.equal(r.status, 201, r.text);
  return r.body.server.id;
}

async function createRes(u: TestUser, mcpId: string, body: Record<string, unknown>) {
  const r = await t.request('POST', `/api/mcp/${mcpId}/resources`, { token: u.pat, body });
  assert.equal(r.status, 201, r.text);
  return r.body;
}

function gatewayResources(mcpId: string) {
  const p = t.app.gateway!.store.current.proxies.get(mcpId);
  return p?.kind === 'mcp' ? p.resources : undefined;
}

test('create returns the full record; lists omit content; the single GET includes it', async () => {
  const u = await t.createUser();
  const mcp = await createMcp(u);
  const r = await t.request('POST', `/api/mcp/${mcp}/resources`, { token: u.pat, body: { uri: 'doc://readme', name: 'readme', content: 'Hello' } });
  assert.equal(r.status, 201);
  const rec = r.body;
  assert.match(rec.id, /^[0-9a-f-]{36}$/);
  assert.deepEqual(rec, { id: rec.id, uri: 'doc://readme', name: 'readme', mimeType: 'text/plain', createdAt: rec.createdAt, content: 'Hello' });
  assert.ok(Number.isInteger(rec.createdAt));
  const withDesc = await createRes(u, mcp, { uri: 'doc://b', name: 'b', description: 'about b', mimeType: 'application/json', content: '{}' });
  assert.equal(withDesc.description, 'about b');

  const list = await t.request('GET', `/api/mcp/${mcp}/resources`, { token: u.pat });
  assert.equal(list.status, 200);
  const { content: _c1, ...sum1 } = rec;
  const { content: _c2, ...sum2 } = withDesc;
  // Order: createdAt, then uri.
  const ordered = [sum1, sum2].sort((x, y) => x.createdAt - y.createdAt || x.uri.localeCompare(y.uri));
  assert.deepEqual(list.body, { resources: ordered });
  const one = await t.request('GET', `/api/mcp/${mcp}/resources/${withDesc.id}`, { token: u.pat });
  assert.deepEqual([one.status, one.body], [200, withDesc]);
  const server = await t.request('GET', `/api/mcp/${mcp}`, { token: u.pat });
  assert.deepEqual(server.body.resources, ordered);
  // The gateway serves them (with content) without contacting the upstream.
  const byUri = new Map([['doc://readme', ['Hello', 'text/plain']], ['doc://b', ['{}', 'application/json']]]);
  assert.deepEqual(gatewayResources(mcp)?.map((x) => [x.uri, x.content, x.mimeType]), ordered.map((x) => [x.uri, ...byUri.get(x.uri)!]));
});

test('GET /api/resources lists every resource of the user with mcpId and mcpName, without content', async () => {
  const u = await t.createUser();
  const other = await t.createUser();
  const m1 = await createMcp(u, 'first');
  const m2 = await createMcp(u, 'second');
  const a = await createRes(u, m1, { uri: 'doc://a', name: 'a', content: 'A' });
  const b = await createRes(u, m2, { uri: 'doc://a', name: 'b', content: 'B' }); // same uri, other server: fine
  await createRes(other, await createMcp(other), { uri: 'doc://x', name: 'x', content: 'X' });
  const r = await t.request('GET', '/api/resources', { token: u.pat });
  assert.equal(r.status, 200);
  const servers = (await t.request('GET', '/api/mcp', { token: u.pat })).body.servers as Array<{ id: string }>;
  const expected = [
    { id: a.id, uri: 'doc://a', name: 'a', mimeType: 'text/plain', createdAt: a.createdAt, mcpId: m1, mcpName: 'first' },
    { id: b.id, uri: 'doc://a', name: 'b', mimeType: 'text/plain', createdAt: b.createdAt, mcpId: m2, mcpName: 'second' },
  ];
  // Grouped by server, in the order of GET /api/mcp.
  expected.sort((x, y) => servers.findIndex((m) => m.id === x.mcpId) - servers.findIndex((m) => m.id === y.mcpId));
  assert.deepEqual(r.body.resources, expected);
});

test('a duplicate uri on one MCP server: 400 URI already in use on this MCP server', async () => {
  const u = await t.createUser();
  const mcp = await createMcp(u);
  const first = await createRes(u, mcp, { uri: 'doc://same', name: 'one', content: '1' });
  const dup = await t.request('POST', `/api/mcp/${mcp}/resources`, { token: u.pat, body: { uri: 'doc://same', name: 'two', content: '2' } });
  assert.deepEqual([dup.status, dup.body], [400, { error: 'URI already in use on this MCP server' }]);
  const second = await createRes(u, mcp, { uri: 'doc://other', name: 'two', content: '2' });
  const clash = await t.request('PATCH', `/api/mcp/${mcp}/resources/${second.id}`, { token: u.pat, body: { uri: 'doc://same' } });
  assert.deepEqual([clash.status, clash.body], [400, { error: 'URI already in use on this MCP server' }]);
  const self = await t.request('PATCH', `/api/mcp/${mcp}/resources/${first.id}`, { token: u.pat, body: { uri: 'doc://same', name: 'renamed' } });
  assert.equal(self.status, 200, 'keeping its own uri is not a clash');
  const list = await t.request('GET', `/api/mcp/${mcp}/resources`, { token: u.pat });
  assert.deepEqual(list.body.resources.map((x: { uri: string }) => x.uri).sort(), ['doc://other', 'doc://same']);
});

test('validation messages name the field and store nothing', async () => {
  const u = await t.createUser();
  const mcp = await createMcp(u);
  const ok = { uri: 'doc://v', name: 'v', content: 'c' };
  const cases: Array<[unknown, string]> = [
    [{ name: 'v', content: 'c' }, 'uri: is required'],
    [{ uri: 'doc://v', content: 'c' }, 'name: is required'],
    [{ uri: 'doc://v', name: 'v' }, 'content: is required'],
    [{ ...ok, uri: '  ' }, 'uri: must not be empty'],
    [{ ...ok, name: 7 }, 'name: must be a string'],
    [{ ...ok, content: null }, 'content: must be a string'],
    [{ ...ok, mimeType: 'plain' }, 'mimeType: must be a MIME type such as text/plain'],
    [{ ...ok, description: 5 }, 'description: must be a string'],
  ];
  for (const [body, msg] of cases) {
    const r = await t.request('POST', `/api/mcp/${mcp}/resources`, { token: u.pat, body });
    assert.deepEqual([r.status, r.body], [400, { error: msg }], JSON.stringify(body));
  }
  const bad = await t.request('POST', `/api/mcp/${mcp}/resources`, { token: u.pat, raw: '{"uri"', headers: { 'content-type': 'application/json' } });
  assert.deepEqual([bad.status, bad.body], [400, { error: 'Invalid JSON body' }]);
  assert.deepEqual((await t.request('GET', `/api/mcp/${mcp}/resources`, { token: u.pat })).body, { resources: [] });
});

test('PATCH changes any subset, a null description clears it, and the gateway follows', async () => {
  const u = await t.createUser();
  const mcp = await createMcp(u);
  const rec = await createRes(u, mcp, { uri: 'doc://p', name: 'p', description: 'd', content: 'old' });
  let r = await t.request('PATCH', `/api/mcp/${mcp}/resources/${rec.id}`, { token: u.pat, body: { content: 'new', mimeType: 'text/markdown' } });
  assert.deepEqual([r.status, r.body], [200, { ...rec, content: 'new', mimeType: 'text/markdown' }]);
  assert.equal(gatewayResources(mcp)?.[0]?.content, 'new');
  r = await t.request('PATCH', `/api/mcp/${mcp}/resources/${rec.id}`, { token: u.pat, body: { description: null } });
  assert.equal('description' in r.body, false);
  r = await t.request('PATCH', `/api/mcp/${mcp}/resources/${rec.id}`, { token: u.pat, body: { name: '' } });
  assert.deepEqual([r.status, r.body], [400, { error: 'name: must not be empty' }]);
  const g = await t.request('GET', `/api/mcp/${mcp}/resources/${rec.id}`, { token: u.pat });
  assert.deepEqual(g.body, { id: rec.id, uri: 'doc://p', name: 'p', mimeType: 'text/markdown', createdAt: rec.createdAt, content: 'new' });
});

test('unknown, malformed and other-server resource ids: 404 Resource not found', async () => {
  const u = await t.createUser();
  const m1 = await createMcp(u);
  const m2 = await createMcp(u, 'two');
  const onOther = await createRes(u, m2, { uri: 'doc://o', name: 'o', content: 'o' });
  for (const rid of [randomUUID(), 'nope', onOther.id]) {
    for (const [method, body] of [['GET'], ['PATCH', { name: 'x' }], ['DELETE']] as const) {
      const r = await t.request(method, `/api/mcp/${m1}/resources/${rid}`, { token: u.pat, body });
      assert.deepEqual([r.status, r.body], [404, { error: 'Resource not found' }], `${method} ${rid}`);
    }
  }
  assert.equal((await t.request('GET', `/api/mcp/${m2}/resources/${onOther.id}`, { token: u.pat })).body.name, 'o');
});

test('DELETE returns {deleted: true} and the gateway stops serving it', async () => {
  const u = await t.createUser();
  const mcp = await createMcp(u);
  const rec = await createRes(u, mcp, { uri: 'doc://d', name: 'd', content: 'd' });
  const r = await t.request('DELETE', `/api/mcp/${mcp}/resources/${rec.id}`, { token: u.pat });
  assert.deepEqual([r.status, r.body], [200, { deleted: true }]);
  assert.deepEqual(gatewayResources(mcp), []);
  const again = await t.request('DELETE', `/api/mcp/${mcp}/resources/${rec.id}`, { token: u.pat });
  assert.deepEqual([again.status, again.body], [404, { error: 'Resource not found' }]);
});

test('quota: private:permissions:resource:limit:N counts resources across all of the user\'s servers', async () => {
  const u = await t.createUser();
  await t.app.services.configChanged(await setConsumerTags(t.app.services.db, u.consumerId, ['private:permissions:user', 'private:permissions:resource:limit:2']));
  const m1 = await createMcp(u);
  const m2 = await createMcp(u, 'two');
  await createRes(u, m1, { uri: 'doc://1', name: '1', content: '1' });
  const second = await createRes(u, m2, { uri: 'doc://2', name: '2', content: '2' });
  const r = await t.request('POST', `/api/mcp/${m1}/resources`, { token: u.pat, body: { uri: 'doc://3', name: '3', content: '3' } });
  assert.deepEqual([r.status, r.body], [403, { error: 'Resource limit reached (2/2). Contact an administrator to raise your quota.' }]);
  await t.request('DELETE', `/api/mcp/${m2}/resources/${second.id}`, { token: u.pat });
  await createRes(u, m1, { uri: 'doc://3', name: '3', content: '3' });
});

test(`quota: the default is ${DEFAULT_RESOURCE_LIMIT} resources per user`, async () => {
  const u = await t.createUser();
  const mcp = await createMcp(u);
  const db = t.app.services.db;
  // Seed all but the last slot directly; the API path is what is under test.
  await db.query(
    `INSERT INTO mcp_resources (id, mcp_id, uri, name, mime_type, content, created_at)
     SELECT gen_random_uuid(), $1, 'doc://seed/' || i, 'seed', 'text/plain', 'x', 1 FROM generate_series(1, $2::int) AS i`,
    [mcp, DEFAULT_RESOURCE_LIMIT - 1]);
  await createRes(u, mcp, { uri: 'doc://last', name: 'last', content: 'x' });
  const r = await t.request('POST', `/api/mcp/${mcp}/resources`, { token: u.pat, body: { uri: 'doc://over', name: 'over', content: 'x' } });
  assert.deepEqual([r.status, r.body], [403, { error: `Resource limit reached (${DEFAULT_RESOURCE_LIMIT}/${DEFAULT_RESOURCE_LIMIT}). Contact an administrator to raise your quota.` }]);
});
