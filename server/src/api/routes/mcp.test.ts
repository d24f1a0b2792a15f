// MCP servers through the HTTP API: create/list/get/patch/delete, validation messages, quotas, secrets, gateway
// objects, cascade delete, re-resolve, cache drain, JWKS test and tenant isolation.
import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { setConsumerTags } from '../../identity/users.ts';
import { cacheKey, cacheToolPrefix } from '../../gateway/cache-keys.ts';
import { sha256Hex } from '../../crypto/tokens.ts';
import type { Lookup } from '../../net/upstream-guard.ts';

const UPSTREAM = 'http://127.0.0.1:9/mcp';
const MISSING = 'name e url sono obbligatori';
const NOT_FOUND = { error: 'MCP server not found' };
/** What a jwt-mode auth object must pin besides its JWKS. */
const PINS = { issuer: 'https://idp.example', audience: 'tollgate' };

let t: TestApp;
before(async () => { t = await startTestApp(); });
after(async () => { await t.close(); });

async function createMcp(u: TestUser, body: Record<string, unknown> = {}) {
  const r = await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'docs', url: UPSTREAM, ...body } });
  assert.equal(r.status, 201, r.text);
  return r.body.server;
}

async function addTags(u: TestUser, ...tags: string[]) {
  const v = await setConsumerTags(t.app.services.db, u.consumerId, ['private:permissions:user', ...tags]);
  await t.app.services.configChanged(v);
}

/** A client key row with the given tags (the keys API is built elsewhere; the cascade only needs the row). */
async function insertKey(u: TestUser, tags: string[]): Promise<string> {
  const id = randomUUID();
  await t.app.services.db.query(
    'INSERT INTO credentials (id, consumer_id, key_hash, key_prefix, tags, is_pat, created_at) VALUES ($1,$2,$3,$4,$5,false,$6)',
    [id, u.consumerId, sha256Hex(randomUUID()), 'svc_ab', tags, 1],
  );
  return id;
}

async function keyTags(id: string): Promise<string[]> {
  const [row] = await t.app.services.db.query<{ tags: string[] }>('SELECT tags FROM credentials WHERE id = $1', [id]);
  return row!.tags;
}

function snapshotProxy(id: string) {
  return t.app.gateway!.store.current.proxies.get(id);
}

async function rsaJwks(): Promise<string> {
  const { publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(publicKey);
  return JSON.stringify({ keys: [{ ...jwk, kid: 'k1', alg: 'RS256', use: 'sig' }] });
}

describe('POST /api/mcp', () => {
  test('creates the server, its gateway objects and returns 201 {server}', async () => {
    const u = await t.createUser();
    const r = await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'docs', url: UPSTREAM } });
    assert.equal(r.status, 201);
    const s = r.body.server;
    assert.match(s.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(Object.keys(s).sort(), ['auth', 'authType', 'createdAt', 'id', 'name', 'proxyHost', 'resources', 'toolPinning', 'tools', 'url']);
    assert.equal(s.name, 'docs');
    assert.equal(s.url, UPSTREAM);
    assert.equal(s.authType, 'none');
    assert.equal(s.auth, null);
    assert.deepEqual(s.tools, []);
    assert.deepEqual(s.resources, []);
    assert.ok(Number.isInteger(s.createdAt) && Math.abs(s.createdAt - Date.now() / 1000) < 60);
    assert.equal(s.proxyHost, `${s.id}.${t.config.proxyDomain}`);
    // Reachable at once: the gateway already holds the service, both routes and the plugin.
    const snap = t.app.gateway!.store.current;
    assert.equal(snap.hosts.get(s.proxyHost), s.id);
    assert.equal(snap.paths.get(`/${s.id}`), s.id);
    assert.equal(snap.proxies.get(s.id)?.upstreamUrl, UPSTREAM);
    const rows = await t.app.services.db.query('SELECT kind, match FROM gateway_routes r JOIN gateway_services s ON s.id = r.service_id WHERE s.proxy_id = $1 ORDER BY kind', [s.id]);
    assert.deepEqual(rows, [{ kind: 'host', match: s.proxyHost }, { kind: 'path', match: `/${s.id}` }]);
  });

  test('the upstream bearer token is sealed at rest, reaches the gateway, and is never returned', async () => {
    const u = await t.createUser();
    const token = `upstream-secret-${randomUUID()}`;
    const r = await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'x', url: UPSTREAM, authType: 'bearer', authToken: token } });
    assert.equal(r.status, 201);
    assert.equal(r.body.server.authType, 'bearer');
    assert.ok(!r.text.includes(token));
    const id = r.body.server.id;
    const [row] = await t.app.services.db.query<{ auth_token_enc: string }>('SELECT auth_token_enc FROM mcp_servers WHERE id = $1', [id]);
    assert.ok(row!.auth_token_enc.startsWith('v1.') && !row!.auth_token_enc.includes(token));
    const proxy = snapshotProxy(id);
    assert.equal(proxy?.kind === 'mcp' ? proxy.upstreamToken : undefined, token);
    for (const path of ['/api/mcp', `/api/mcp/${id}`, '/api/resources']) {
      const g = await t.request('GET', path, { token: u.pat });
      assert.equal(g.status, 200);
      assert.ok(!g.text.includes(token), `${path} leaked the token`);
      assert.ok(!g.text.includes('auth_token') && !g.text.includes('authToken'), `${path} mentions the token field`);
    }
    const p = await t.request('PATCH', `/api/mcp/${id}`, { token: u.pat, body: { name: 'y' } });
    assert.ok(!p.text.includes(token) && !('authToken' in p.body));
  });

  test('missing or blank name or url: 400 name e url sono obbligatori', async () => {
    const u = await t.createUser();
    for (const body of [{}, { name: 'x' }, { url: UPSTREAM }, { name: '  ', url: UPSTREAM }, { name: 'x', url: '' }, { name: null, url: UPSTREAM }, []]) {
      const r = await t.request('POST', '/api/mcp', { token: u.pat, body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.deepEqual(r.body, { error: MISSING });
    }
    const list = await t.request('GET', '/api/mcp', { token: u.pat });
    assert.deepEqual(list.body, { servers: [] });
  });

  test('a body that is not JSON, or has no JSON content type: 400 Invalid JSON body', async () => {
    const u = await t.createUser();
    const bad = await t.request('POST', '/api/mcp', { token: u.pat, raw: '{"name":', headers: { 'content-type': 'application/json' } });
    assert.deepEqual([bad.status, bad.body], [400, { error: 'Invalid JSON body' }]);
    const noType = await t.request('POST', '/api/mcp', { token: u.pat, raw: JSON.stringify({ name: 'x', url: UPSTREAM }) });
    assert.deepEqual([noType.status, noType.body], [400, { error: 'Invalid JSON body' }]);
  });

  test('field validation messages name the field', async () => {
    const u = await t.createUser();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ authType: 'bearer' }, 'authToken: is required when authType is bearer'],
      [{ authType: 'bearer', authToken: '' }, 'authToken: is required when authType is bearer'],
      [{ authToken: 'abc' }, 'authToken: must not be set unless authType is bearer'],
      [{ authType: 'none', authToken: 'abc' }, 'authToken: must not be set unless authType is bearer'],
      [{ authType: 'basic' }, 'authType: must be none or bearer'],
      [{ name: 42 }, 'name: must be a string'],
      [{ url: 'not a url' }, 'url: must be a valid URL'],
      [{ url: 'ftp://example.com/x' }, 'url: must use https'],
      [{ url: 'http://user:pw@127.0.0.1/x' }, 'url: must not contain credentials'],
      [{ auth: { mode: 'oauth' } }, 'auth.mode: Invalid option: expected one of "svc_api_key"|"jwt"'],
      [{ auth: { mode: 'jwt', ...PINS } }, 'auth.jwksJson: is required when mode is jwt'],
      [{ auth: { mode: 'jwt', ...PINS, jwksJson: '{' } }, 'auth.jwksJson: is not valid JSON'],
      [{ auth: { mode: 'jwt', ...PINS, jwksJson: '{"keys":[]}' } }, 'auth.jwksJson: contains no keys'],
      [{ auth: { mode: 'jwt', ...PINS, jwksJson: '{"keys":[{"kty":"oct","k":"AAAA"}]}' } }, 'auth.jwksJson: keys[0]: kty must be RSA, EC or OKP'],
    ];
    for (const [extra, msg] of cases) {
      const r = await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'x', url: UPSTREAM, ...extra } });
      assert.equal(r.status, 400, JSON.stringify(extra));
      assert.deepEqual(r.body, { error: msg }, JSON.stringify(extra));
    }
    const list = await t.request('GET', '/api/mcp', { token: u.pat });
    assert.deepEqual(list.body.servers, [], 'a rejected create stores nothing');
  });

  test('jwt mode without an audience or an issuer is a 400 naming it, on create and on patch, and stores nothing', async () => {
    const u = await t.createUser();
    const jwksJson = await rsaJwks();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ mode: 'jwt', issuer: PINS.issuer, jwksJson }, 'auth.audience: is required when mode is jwt'],
      [{ mode: 'jwt', audience: PINS.audience, jwksJson }, 'auth.issuer: is required when mode is jwt'],
      [{ mode: 'jwt', jwksJson }, 'auth.audience: is required when mode is jwt'],
      [{ mode: 'jwt', audience: '', issuer: PINS.issuer, jwksJson }, 'auth.audience: Too small: expected string to have >=1 characters'],
    ];
    for (const [auth, msg] of cases) {
      const r = await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'x', url: UPSTREAM, auth } });
      assert.deepEqual([r.status, r.body], [400, { error: msg }], JSON.stringify(auth));
    }
    assert.deepEqual((await t.request('GET', '/api/mcp', { token: u.pat })).body.servers, [], 'a rejected create stores nothing');
    const s = await createMcp(u);
    for (const [auth, msg] of cases) {
      const r = await t.request('PATCH', `/api/mcp/${s.id}`, { token: u.pat, body: { auth } });
      assert.deepEqual([r.status, r.body], [400, { error: msg }], JSON.stringify(auth));
    }
    assert.equal((await t.request('GET', `/api/mcp/${s.id}`, { token: u.pat })).body.auth, null, 'a rejected patch changes nothing');
    assert.equal(snapshotProxy(s.id)?.auth.mode, 'svc_api_key');
  });

  test('a jwt auth object is stored, returned with its public JWKS, and pushed to the gateway plugin', async () => {
    const u = await t.createUser();
    const jwksJson = await rsaJwks();
    const auth = { mode: 'jwt', issuer: 'https://idp.example', audience: 'tollgate', jwksJson, clockSkewS: 30 };
    const s = await createMcp(u, { auth });
    assert.deepEqual(s.auth, auth);
    assert.deepEqual(snapshotProxy(s.id)?.auth, auth);
    const g = await t.request('GET', `/api/mcp/${s.id}`, { token: u.pat });
    assert.deepEqual(g.body.auth, auth);
  });

  test('quota: 10 MCP servers by default, then 403 with the exact message', async () => {
    const u = await t.createUser();
    for (let i = 0; i < 10; i++) await createMcp(u, { name: `m${i}` });
    const r = await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'eleventh', url: UPSTREAM } });
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, { error: 'MCP limit reached (10/10). Contact an administrator to raise your quota.' });
    assert.equal((await t.request('GET', '/api/mcp', { token: u.pat })).body.servers.length, 10);
  });

  test('quota: the consumer tag private:permissions:mcp:limit:N overrides the default', async () => {
    const u = await t.createUser();
    await addTags(u, 'private:permissions:mcp:limit:2');
    await createMcp(u);
    await createMcp(u);
    const r = await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'x', url: UPSTREAM } });
    assert.deepEqual([r.status, r.body], [403, { error: 'MCP limit reached (2/2). Contact an administrator to raise your quota.' }]);
    await addTags(u, 'private:permissions:mcp:limit:3');
    await createMcp(u);
  });

  test('concurrent creates cannot overshoot the quota', async () => {
    const u = await t.createUser();
    await addTags(u, 'private:permissions:mcp:limit:3');
    const rs = await Promise.all(Array.from({ length: 6 }, (_, i) =>
      t.request('POST', '/api/mcp', { token: u.pat, body: { name: `c${i}`, url: UPSTREAM } })));
    assert.deepEqual(rs.map((r) => r.status).sort(), [201, 201, 201, 403, 403, 403]);
  });
});

describe('GET /api/mcp and /api/mcp/:id', () => {
  test('the list holds only the caller\'s servers, without pin; the single GET adds the pin', async () => {
    const a = await t.createUser();
    const b = await t.createUser();
    const s1 = await createMcp(a, { name: 'one' });
    const s2 = await createMcp(a, { name: 'two' });
    await createMcp(b, { name: 'other' });
    const list = await t.request('GET', '/api/mcp', { token: a.pat });
    assert.equal(list.status, 200);
    // Ordered by creation time, then id.
    const expected = [s1, s2].sort((x, y) => x.createdAt - y.createdAt || (x.id < y.id ? -1 : 1)).map((x) => x.id);
    assert.deepEqual(list.body.servers.map((s: { id: string }) => s.id), expected);
    assert.ok(list.body.servers.every((s: object) => !('pin' in s)));
    const one = await t.request('GET', `/api/mcp/${s1.id}`, { token: a.pat });
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.pin, { hostname: '127.0.0.1', ip: '127.0.0.1', port: 9 });
    const { pin: _pin, ...rest } = one.body;
    assert.deepEqual(rest, s1);
  });

  test('unknown, malformed and foreign ids: 404 MCP server not found', async () => {
    const a = await t.createUser();
    const b = await t.createUser();
    const s = await createMcp(a);
    for (const id of [randomUUID(), 'not-a-uuid', "1' OR '1'='1", s.id]) {
      const r = await t.request('GET', `/api/mcp/${encodeURIComponent(id)}`, { token: b.pat });
      assert.deepEqual([r.status, r.body], [404, NOT_FOUND], id);
    }
  });

  test('without a credential: 401', async () => {
    const r = await t.request('GET', '/api/mcp');
    assert.deepEqual([r.status, r.body], [401, { error: 'Not authenticated' }]);
  });
});

describe('PATCH /api/mcp/:id', () => {
  test('changes the name only and returns the updated record', async () => {
    const u = await t.createUser();
    const s = await createMcp(u);
    const r = await t.request('PATCH', `/api/mcp/${s.id}`, { token: u.pat, body: { name: 'renamed' } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { ...s, name: 'renamed' });
    assert.equal(snapshotProxy(s.id)?.name, 'renamed');
  });

  test('a URL change moves the gateway upstream and refreshes the pin', async () => {
    const u = await t.createUser();
    const s = await createMcp(u);
    const url = 'http://127.0.0.2:8123/other';
    const r = await t.request('PATCH', `/api/mcp/${s.id}`, { token: u.pat, body: { url } });
    assert.equal(r.status, 200);
    assert.equal(r.body.url, url);
    const g = await t.request('GET', `/api/mcp/${s.id}`, { token: u.pat });
    assert.deepEqual(g.body.pin, { hostname: '127.0.0.2', ip: '127.0.0.2', port: 8123 });
    assert.equal(snapshotProxy(s.id)?.upstreamUrl, url);
    assert.deepEqual(snapshotProxy(s.id)?.pin, g.body.pin);
  });

  test('authType and authToken stay consistent', async () => {
    const u = await t.createUser();
    const s = await createMcp(u);
    let r = await t.request('PATCH', `/api/mcp/${s.id}`, { token: u.pat, body: { authType: 'bearer' } });
    assert.deepEqual([r.status, r.body], [400, { error: 'authToken: is required when authType is bearer' }]);
    r = await t.request('PATCH', `/api/mcp/${s.id}`, { token: u.pat, body: { authToken: 'tok' } });
    assert.deepEqual([r.status, r.body], [400, { error: 'authToken: must not be set unless authType is bearer' }]);
    r = await t.request('PATCH', `/api/mcp/${s.id}`, { token: u.pat, body: { authType: 'bearer', authToken: 'tok-1' } });
    assert.equal(r.status, 200);
    assert.equal(r.body.authType, 'bearer');
    const p = snapshotProxy(s.id);
    assert.equal(p?.kind === 'mcp' && p.upstreamToken, 'tok-1');
    // A new token alone replaces the stored one; the authType stays bearer.
    r = await t.request('PATCH', `/api/mcp/${s.id}`, { token: u.pat, body: { authToken: 'tok-2' } });
    assert.equal(r.status, 200);
    const p2 = snapshotProxy(s.id);
    assert.equal(p2?.kind === 'mcp' && p2.upstreamToken, 'tok-2');
    // Other fields keep the token.
    r = await t.request('PATCH', `/api/mcp/${s.id}`, { token: u.pat, body: { name: 'n' } });
    const p3 = snapshotProxy(s.id);
    assert.equal(p3?.kind === 'mcp' && p3.upstreamToken, 'tok-2');
    // Back to none drops the stored token.
    r = await t.request('PATCH', `/api/mcp/${s.id}`, { token: u.pat, body: { authType: 'none' } });
    assert.equal(r.body.authType, 'none');
    const [row] = await t.app.services.db.query<{ auth_token_enc: string | null }>('SELECT auth_token_enc FROM mcp_servers WHERE id = $1', [s.id]);
    assert.equal(row!.auth_token_enc, null);
    const p4 = snapshotProxy(s.id);
    assert.equal(p4?.kind === 'mcp' ? p4.upstreamToken : 'x', undefined);
  });

  test('an auth change reaches the gateway plugin; null clears it', async () => {
    const u = await t.createUser();
    const s = await createMcp(u);
    const auth = { mode: 'jwt', ...PINS, jwksJson: await rsaJwks(), clockSkewS: 10 };
    let r = await t.request('PATCH', `/api/mcp/${s.id}`, { token: u.pat, body: { auth } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.auth, auth);
    assert.deepEqual(snapshotProxy(s.id)?.auth, auth);
    r = await t.request('PATCH', `/api/mcp/${s.id}`, { token: u.pat, body: { auth: { mode: 'jwt', ...PINS, jwksJson: 'nope' } } });
    assert.deepEqual([r.status, r.body], [400, { error: 'auth.jwksJson: is not valid JSON' }]);
    assert.deepEqual(snapshotProxy(s.id)?.auth, auth, 'a rejected patch changes nothing');
    r = await t.request('PATCH', `/api/mcp/${s.id}`, { token: u.pat, body: { auth: null } });
    assert.equal(r.body.auth, null);
    assert.equal(snapshotProxy(s.id)?.auth.mode, 'svc_api_key');
  });

  test('bad input gives 400 and leaves the record unchanged', async () => {
    const u = await t.createUser();
    const s = await createMcp(u, { authType: 'bearer', authToken: 'keep-me' });
    const cases: Array<[unknown, string]> = [
      [{ name: '' }, MISSING],
      [{ url: null }, MISSING],
      [{ url: 'nope' }, 'url: must be a valid URL'],
      [{ name: 'ok', url: 'gopher://x' }, 'url: must use https'],
      [{ authType: 'digest' }, 'authType: must be none or bearer'],
      [{ authType: 'none', authToken: 'x' }, 'authToken: must not be set unless authType is bearer'],
    ];
    for (const [body, msg] of cases) {
      const r = await t.request('PATCH', `/api/mcp/${s.id}`, { token: u.pat, body });
      assert.deepEqual([r.status, r.body], [400, { error: msg }], JSON.stringify(body));
    }
    const bad = await t.request('PATCH', `/api/mcp/${s.id}`, { token: u.pat, raw: 'nope', headers: { 'content-type': 'application/json' } });
    assert.deepEqual([bad.status, bad.body], [400, { error: 'Invalid JSON body' }]);
    const after = await t.request('GET', `/api/mcp/${s.id}`, { token: u.pat });
    const { pin: _pin, ...rest } = after.body;
    assert.deepEqual(rest, s);
    const p = snapshotProxy(s.id);
    assert.equal(p?.kind === 'mcp' && p.upstreamToken, 'keep-me');
  });
});

describe('DELETE /api/mcp/:id', () => {
  test('cascade: gateway objects, resources, key tags and cached responses go; other proxies keep theirs', async () => {
    const u = await t.createUser();
    const s = await createMcp(u);
    const other = await createMcp(u, { name: 'other' });
    const res = await t.request('POST', `/api/mcp/${s.id}/resources`, { token: u.pat, body: { uri: 'doc://a', name: 'a', content: 'A' } });
    assert.equal(res.status, 201);
    const key = await insertKey(u, ['name:k1', 'private:permissions:mcp', `mcp:${s.id}:tool:*`, `mcp:${s.id}:resource:${res.body.id}`,
      `mcp:${s.id}:tool:echo`, `mcp:${other.id}:tool:*`]);
    const state = t.app.services.state;
    await state.set(cacheKey(cacheToolPrefix(s.id, 'echo'), 'r0', 'shared', 'h1'), 'cached');
    await state.set(cacheKey(cacheToolPrefix(other.id, 'echo'), 'r0', 'shared', 'h1'), 'cached');

    const r = await t.request('DELETE', `/api/mcp/${s.id}`, { token: u.pat });
    assert.deepEqual([r.status, r.body], [200, { deleted: true }]);

    assert.deepEqual(await keyTags(key), ['name:k1', 'private:permissions:mcp', `mcp:${other.id}:tool:*`]);
    const db = t.app.services.db;
    assert.deepEqual(await db.query('SELECT 1 FROM gateway_services WHERE proxy_id = $1', [s.id]), []);
    assert.deepEqual(await db.query('SELECT 1 FROM gateway_routes WHERE match IN ($1, $2)', [s.proxyHost, `/${s.id}`]), []);
    assert.deepEqual(await db.query('SELECT 1 FROM mcp_resources WHERE mcp_id = $1', [s.id]), []);
    const snap = t.app.gateway!.store.current;
    assert.equal(snap.proxies.has(s.id), false);
    assert.equal(snap.hosts.has(s.proxyHost), false);
    assert.equal(snap.paths.has(`/${s.id}`), false);
    assert.equal(await state.get(cacheKey(cacheToolPrefix(s.id, 'echo'), 'r0', 'shared', 'h1')), undefined);
    assert.equal(await state.get(cacheKey(cacheToolPrefix(other.id, 'echo'), 'r0', 'shared', 'h1')), 'cached');

    const again = await t.request('DELETE', `/api/mcp/${s.id}`, { token: u.pat });
    assert.deepEqual([again.status, again.body], [404, NOT_FOUND]);
    const g = await t.request('GET', `/api/mcp/${s.id}`, { token: u.pat });
    assert.deepEqual([g.status, g.body], [404, NOT_FOUND]);
    assert.ok(snap.proxies.has(other.id));
  });

  test('a key whose only permissions were on the deleted server keeps existing with no permissions', async () => {
    const u = await t.createUser();
    const s = await createMcp(u);
    const key = await insertKey(u, [`mcp:${s.id}:tool:*`]);
    await t.request('DELETE', `/api/mcp/${s.id}`, { token: u.pat });
    assert.deepEqual(await keyTags(key), []);
  });

  test('deleting frees a quota slot', async () => {
    const u = await t.createUser();
    await addTags(u, 'private:permissions:mcp:limit:1');
    const s = await createMcp(u);
    assert.equal((await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'x', url: UPSTREAM } })).status, 403);
    await t.request('DELETE', `/api/mcp/${s.id}`, { token: u.pat });
    await createMcp(u);
  });
});

describe('POST /api/mcp/:id/re-resolve and DELETE /api/mcp/:id/cache', () => {
  test('re-resolve returns the refreshed pin', async () => {
    const u = await t.createUser();
    const s = await createMcp(u);
    await t.app.services.db.query('UPDATE mcp_servers SET pin = NULL WHERE id = $1', [s.id]);
    const r = await t.request('POST', `/api/mcp/${s.id}/re-resolve`, { token: u.pat });
    assert.deepEqual([r.status, r.body], [200, { pin: { hostname: '127.0.0.1', ip: '127.0.0.1', port: 9 } }]);
    assert.deepEqual((await t.request('GET', `/api/mcp/${s.id}`, { token: u.pat })).body.pin, r.body.pin);
    assert.deepEqual(snapshotProxy(s.id)?.pin, r.body.pin);
  });

  test('cache drain drops every cached response of one tool and nothing else', async () => {
    const u = await t.createUser();
    const s = await createMcp(u);
    const other = await createMcp(u, { name: 'other' });
    const state = t.app.services.state;
    const echo = [cacheKey(cacheToolPrefix(s.id, 'echo'), 'r0', 'cred-1', 'h1'), cacheKey(cacheToolPrefix(s.id, 'echo'), 'r0', 'cred-2', 'h2'), cacheKey(cacheToolPrefix(s.id, 'echo'), 'r0', 'shared', 'h3')];
    const kept = [cacheKey(cacheToolPrefix(s.id, 'echo2'), 'r0', 'shared', 'h1'), cacheKey(cacheToolPrefix(s.id, 'add'), 'r0', 'cred-1', 'h1'), cacheKey(cacheToolPrefix(other.id, 'echo'), 'r0', 'cred-1', 'h1')];
    for (const k of [...echo, ...kept]) await state.set(k, 'v', 60_000);
    const r = await t.request('DELETE', `/api/mcp/${s.id}/cache?tool=echo`, { token: u.pat });
    assert.deepEqual([r.status, r.body], [200, { dropped: 3 }]);
    for (const k of echo) assert.equal(await state.get(k), undefined, k);
    for (const k of kept) assert.equal(await state.get(k), 'v', k);
    const none = await t.request('DELETE', `/api/mcp/${s.id}/cache?tool=echo`, { token: u.pat });
    assert.deepEqual(none.body, { dropped: 0 });
  });

  test('cache drain without ?tool= is a 400', async () => {
    const u = await t.createUser();
    const s = await createMcp(u);
    for (const q of ['', '?tool=', '?tools=echo']) {
      const r = await t.request('DELETE', `/api/mcp/${s.id}/cache${q}`, { token: u.pat });
      assert.deepEqual([r.status, r.body], [400, { error: 'tool: is required (query parameter ?tool=<tool_name>)' }], q);
    }
  });
});

describe('POST /api/mcp/jwks/test', () => {
  test('a valid JWKS lists its keys', async () => {
    const u = await t.createUser();
    const { publicKey } = await generateKeyPair('ES256', { extractable: true });
    const ec = await exportJWK(publicKey);
    const jwksJson = JSON.stringify({ keys: [...JSON.parse(await rsaJwks()).keys, { ...ec, kid: 'e1' }] });
    const r = await t.request('POST', '/api/mcp/jwks/test', { token: u.pat, body: { jwksJson } });
    assert.deepEqual([r.status, r.body], [200, { ok: true, keys: [
      { kid: 'k1', kty: 'RSA', alg: 'RS256', use: 'sig' }, { kid: 'e1', kty: 'EC', alg: null, use: null },
    ] }]);
  });

  test('a bad JWKS is 200 {ok: false, error}', async () => {
    const u = await t.createUser();
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const priv = JSON.stringify({ keys: [await exportJWK(privateKey)] });
    const cases: Array<[unknown, string]> = [
      [{ jwksJson: '{' }, 'is not valid JSON'],
      [{ jwksJson: '{"keys":[]}' }, 'contains no keys'],
      [{ jwksJson: '[1]' }, 'must be an object with a "keys" array'],
      [{ jwksJson: priv }, 'keys[0] is a private key; paste only public keys'],
      [{ jwksJson: JSON.stringify({ keys: [{ ...JSON.parse(priv).keys[0], d: undefined, kid: 5 }] }) }, 'keys[0]: kid must be a string'],
      [{ jwksJson: '' }, 'jwksJson is empty'],
      [{}, 'jwksJson must be a string holding a JWKS document'],
      [{ jwksJson: { keys: [] } }, 'jwksJson must be a string holding a JWKS document'],
    ];
    for (const [body, error] of cases) {
      const r = await t.request('POST', '/api/mcp/jwks/test', { token: u.pat, body });
      assert.deepEqual([r.status, r.body], [200, { ok: false, error }], JSON.stringify(body));
    }
    const bad = await t.request('POST', '/api/mcp/jwks/test', { token: u.pat, raw: '{', headers: { 'content-type': 'application/json' } });
    assert.deepEqual([bad.status, bad.body], [400, { error: 'Invalid JSON body' }]);
  });
});

test('tenant isolation: every MCP route answers 404 to another user and changes nothing', async () => {
  const a = await t.createUser();
  const b = await t.createUser();
  const s = await createMcp(a, { authType: 'bearer', authToken: 'a-secret' });
  const res = await t.request('POST', `/api/mcp/${s.id}/resources`, { token: a.pat, body: { uri: 'doc://x', name: 'x', content: 'X' } });
  await t.app.services.state.set(cacheKey(cacheToolPrefix(s.id, 'echo'), 'r0', 'shared', 'h'), 'v');
  const calls: Array<[string, string, unknown?]> = [
    ['GET', `/api/mcp/${s.id}`],
    ['PATCH', `/api/mcp/${s.id}`, { name: 'stolen' }],
    ['DELETE', `/api/mcp/${s.id}`],
    ['POST', `/api/mcp/${s.id}/tools`],
    ['POST', `/api/mcp/${s.id}/re-resolve`],
    ['DELETE', `/api/mcp/${s.id}/cache?tool=echo`],
    ['DELETE', `/api/mcp/${s.id}/cache`],
    ['GET', `/api/mcp/${s.id}/resources`],
    ['POST', `/api/mcp/${s.id}/resources`, { uri: 'doc://y', name: 'y', content: 'Y' }],
    ['GET', `/api/mcp/${s.id}/resources/${res.body.id}`],
    ['PATCH', `/api/mcp/${s.id}/resources/${res.body.id}`, { content: 'stolen' }],
    ['DELETE', `/api/mcp/${s.id}/resources/${res.body.id}`],
    ['GET', `/api/mcp/${s.id}/rules`],
    ['PUT', `/api/mcp/${s.id}/rules`, { rules: [] }],
  ];
  for (const [method, path, body] of calls) {
    for (const p of [path, path.replace(s.id, 'zzz'), path.replace(s.id, randomUUID())]) {
      const r = await t.request(method, p, { token: b.pat, body });
      assert.deepEqual([r.status, r.body], [404, NOT_FOUND], `${method} ${p}`);
    }
  }
  const g = await t.request('GET', `/api/mcp/${s.id}`, { token: a.pat });
  assert.equal(g.body.name, s.name);
  assert.equal(g.body.resources.length, 1);
  assert.equal(await t.app.services.state.get(cacheKey(cacheToolPrefix(s.id, 'echo'), 'r0', 'shared', 'h')), 'v');
  const rr = await t.request('GET', `/api/mcp/${s.id}/resources/${res.body.id}`, { token: a.pat });
  assert.equal(rr.body.content, 'X');
  assert.deepEqual((await t.request('GET', '/api/resources', { token: b.pat })).body, { resources: [] });
  assert.deepEqual((await t.request('GET', '/api/mcp', { token: b.pat })).body, { servers: [] });
});

describe('strict upstreams (https only, public addresses only)', () => {
  let strict: TestApp;
  const dns = new Map<string, string[]>([
    ['mcp.example.com', ['93.184.216.34']],
    ['internal.example.com', ['10.1.2.3']],
    ['mixed.example.com', ['93.184.216.34', '192.168.1.1']],
    ['moving.example.com', ['93.184.216.34']],
  ]);
  const lookup: Lookup = async (host) => {
    const a = dns.get(host);
    if (!a) throw new Error('ENOTFOUND');
    return a;
  };
  before(async () => { strict = await startTestApp({ strictUpstreams: true, lookup }); });
  after(async () => { await strict.close(); });

  test('hostile URLs are rejected with 400 url: <reason>', async () => {
    const u = await strict.createUser();
    const cases: Array<[string, RegExp]> = [
      ['http://mcp.example.com/mcp', /^url: must use https$/],
      ['https://127.0.0.1/mcp', /^url: host resolves to a loopback address \(127\.0\.0\.1\)$/],
      ['https://localhost.invalid/mcp', /^url: host localhost\.invalid does not resolve$/],
      ['https://10.0.0.5/mcp', /^url: host resolves to a private address/],
      ['https://169.254.169.254/latest/meta-data', /^url: host resolves to a link-local address/],
      ['https://[::1]/mcp', /^url: host resolves to a loopback address/],
      ['https://[::ffff:127.0.0.1]/mcp', /^url: host resolves to a loopback address/],
      ['https://[fd00::1]/mcp', /^url: host resolves to a unique-local address/],
      ['https://100.64.0.1/mcp', /^url: host resolves to a carrier-grade NAT address/],
      ['https://internal.example.com/mcp', /^url: host resolves to a private address \(10\.1\.2\.3\)$/],
      ['https://mixed.example.com/mcp', /^url: host resolves to a private address \(192\.168\.1\.1\)$/],
    ];
    for (const [url, re] of cases) {
      const r = await strict.request('POST', '/api/mcp', { token: u.pat, body: { name: 'x', url } });
      assert.equal(r.status, 400, url);
      assert.match(r.body.error, re, url);
    }
    assert.deepEqual((await strict.request('GET', '/api/mcp', { token: u.pat })).body, { servers: [] });
  });

  test('a public https upstream is accepted and pinned; a PATCH to a private one is refused', async () => {
    const u = await strict.createUser();
    const r = await strict.request('POST', '/api/mcp', { token: u.pat, body: { name: 'x', url: 'https://mcp.example.com/mcp' } });
    assert.equal(r.status, 201, r.text);
    const id = r.body.server.id;
    const g = await strict.request('GET', `/api/mcp/${id}`, { token: u.pat });
    assert.deepEqual(g.body.pin, { hostname: 'mcp.example.com', ip: '93.184.216.34', port: 443 });
    const p = await strict.request('PATCH', `/api/mcp/${id}`, { token: u.pat, body: { url: 'https://internal.example.com/mcp' } });
    assert.deepEqual([p.status, p.body], [400, { error: 'url: host resolves to a private address (10.1.2.3)' }]);
    assert.equal((await strict.request('GET', `/api/mcp/${id}`, { token: u.pat })).body.url, 'https://mcp.example.com/mcp');
  });

  test('re-resolve follows DNS changes, and refuses (keeping the old pin) when the host turns private', async () => {
    const u = await strict.createUser();
    const r = await strict.request('POST', '/api/mcp', { token: u.pat, body: { name: 'x', url: 'https://moving.example.com:8443/mcp' } });
    const id = r.body.server.id;
    dns.set('moving.example.com', ['8.8.4.4']);
    const rr = await strict.request('POST', `/api/mcp/${id}/re-resolve`, { token: u.pat });
    assert.deepEqual([rr.status, rr.body], [200, { pin: { hostname: 'moving.example.com', ip: '8.8.4.4', port: 8443 } }]);
    dns.set('moving.example.com', ['192.168.0.10']);
    const bad = await strict.request('POST', `/api/mcp/${id}/re-resolve`, { token: u.pat });
    assert.deepEqual([bad.status, bad.body], [400, { error: 'url: host resolves to a private address (192.168.0.10)' }]);
    assert.deepEqual((await strict.request('GET', `/api/mcp/${id}`, { token: u.pat })).body.pin, rr.body.pin);
  });
});

test('a NUL character anywhere in a JSON body is a 400 naming the field, never a 500 from the database', async () => {
  const u = await t.createUser();
  const mcp = await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'a\u0000b', url: UPSTREAM } });
  assert.deepEqual([mcp.status, mcp.body], [400, { error: 'name: must not contain NUL characters' }]);
  const llm = await t.request('POST', '/api/llm', { token: u.pat, body: { name: 'chat', provider: 'openai', allowedModels: ['gpt-4o', 'x\u0000'] } });
  assert.deepEqual([llm.status, llm.body], [400, { error: 'allowedModels[1]: must not contain NUL characters' }]);
  const id = (await createMcp(u)).id as string;
  const rules = await t.request('PUT', `/api/mcp/${id}/rules`, { token: u.pat, body: { rules: [{ rule_type: 'response_replace', tools: ['*'], pattern: 'a', replacement: '\u0000' }] } });
  assert.deepEqual([rules.status, rules.body], [400, { error: 'rules[0].replacement: must not contain NUL characters' }]);
  const key = await t.request('POST', '/api/keys', { token: u.pat, body: { ['na\u0000me']: 'k' } });
  assert.deepEqual([key.status, key.body], [400, { error: '"na\\u0000me": must not contain NUL characters' }]);
  // An escaped backslash followed by u0000 is ordinary text.
  const fine = await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'back\\u0000slash', url: UPSTREAM } });
  assert.equal(fine.status, 201, fine.text);
});
