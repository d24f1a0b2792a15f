// Inbound authentication and authorization of MCP proxy traffic (spec Authentication 9-10, key tag vocabulary,
// issue 3 item 2): client keys and their tags, the PAT refused, and JWTs checked against the stored JWKS.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { connect, createKey, createProxy, flushedEvents, INIT, rawPost, type ProxyUnderTest } from '@tollgate/testkit/mcp-kit.ts';

let t: TestApp;
let up: McpUpstream;
let user: TestUser;
let p: ProxyUnderTest;

before(async () => {
  t = await startTestApp();
  up = await startMcpUpstream();
  user = await t.createUser();
  p = await createProxy(t, user, up.url);
});
after(async () => {
  await up.close();
  await t.close();
});

test('no credential, an unknown key and the PAT get 401 and never reach the upstream', async () => {
  const before = up.requests.length;
  const none = await rawPost(p.pathUrl, INIT);
  assert.equal(none.status, 401);
  assert.deepEqual(none.json, { error: 'Authentication required' });
  assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
  const unknown = await rawPost(p.pathUrl, INIT, { authorization: 'Bearer tgk_not-a-real-key' });
  assert.equal(unknown.status, 401);
  assert.deepEqual(unknown.json, { error: 'Invalid API key' });
  const pat = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${user.pat}` });
  assert.equal(pat.status, 401);
  assert.match(pat.json.error, /Personal access tokens are not accepted/);
  assert.equal(up.requests.length, before);
  const ev = await flushedEvents(t, p.id);
  assert.deepEqual(ev.slice(-3).map((e) => [e.event_type, e.details.reason]), [['deny', 'missing_credential'], ['deny', 'unknown_key'], ['deny', 'pat_on_proxy']]);
  assert.ok(ev.every((e) => e.user_id === user.userId), 'events belong to the proxy owner');
  assert.ok(!JSON.stringify(ev).includes(user.pat), 'no credential in events');
});

test('a key without a tag for this proxy reaches nothing (403), even with the generic MCP flag', async () => {
  const other = await createProxy(t, user, up.url);
  const k = await createKey(t, other, ['*']);
  const r = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${k}` });
  assert.equal(r.status, 403);
  assert.deepEqual(r.json, { error: 'This credential has no access to this MCP server' });
});

test('a key with a tag for this proxy but without the flag private:permissions:mcp reaches nothing (403)', async () => {
  const k = await createKey(t, p, ['*']);
  const ok = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${k}` });
  assert.equal(ok.status, 200, ok.text);
  await t.app.services.db.query(`UPDATE credentials SET tags = array_remove(tags, 'private:permissions:mcp') WHERE key_prefix = $1`, [k.slice(0, 6)]);
  const { bumpConfigVersion } = await import('../../snapshot/changes.ts');
  await t.app.services.configChanged(await bumpConfigVersion(t.app.services.db));
  const r = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${k}` });
  assert.equal(r.status, 403);
  assert.deepEqual(r.json, { error: 'This credential has no access to this MCP server' });
});

test('a key of another user with tags for this proxy reaches nothing', async () => {
  const stranger = await t.createUser();
  const own = await createProxy(t, stranger, up.url);
  const k = await createKey(t, own, ['*']);
  // Hand-edit a tag for p into the stranger's key (the API refuses this; storage corruption must not grant access).
  await t.app.services.db.query(`UPDATE credentials SET tags = array_append(tags, $1) WHERE key_prefix = $2`, [`mcp:${p.id}:tool:*`, k.slice(0, 6)]);
  const { bumpConfigVersion } = await import('../../snapshot/changes.ts');
  await t.app.services.configChanged(await bumpConfigVersion(t.app.services.db));
  const r = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${k}` });
  assert.equal(r.status, 403);
});

test('a tool name with a NUL character is refused and its deny event is still recorded (and nothing after it is lost)', async () => {
  const k = await createKey(t, p, ['echo']);
  const session = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${k}` });
  const sid = session.headers.get('mcp-session-id') ?? '';
  const h = { authorization: `Bearer ${k}`, 'mcp-session-id': sid };
  const bad = await rawPost(p.pathUrl, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'ev\u0000il', arguments: {} } }, h);
  assert.equal(bad.status, 200);
  assert.equal(bad.json.error.code, -32001);
  const ok = await rawPost(p.pathUrl, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'echo', arguments: { text: 'after' } } }, h);
  assert.equal(ok.status, 200, ok.text);
  const ev = await flushedEvents(t, p.id);
  assert.ok(ev.some((e) => e.event_type === 'deny' && e.tool === 'ev\uFFFDil'), 'the deny event is stored with the NUL replaced');
  assert.ok(ev.some((e) => e.event_type === 'allow' && e.tool === 'echo' && ev.indexOf(e) > ev.findIndex((x) => x.tool === 'ev\uFFFDil')));
});

test('tools/list shows only permitted tools; calling another is a JSON-RPC error with a deny event', async () => {
  const k = await createKey(t, p, ['echo', 'add']);
  const c = await connect(t, p, { token: k });
  try {
    const tools = await c.client.listTools();
    assert.deepEqual(tools.tools.map((x) => x.name).sort(), ['add', 'echo']);
    const ok = await c.client.callTool({ name: 'echo', arguments: { text: 'yes' } });
    assert.deepEqual(ok.content, [{ type: 'text', text: 'yes' }]);
    const calls = up.calls.get('secret') ?? 0;
    await assert.rejects(c.client.callTool({ name: 'secret', arguments: {} }), (err: { code?: number; message: string }) => {
      assert.equal(err.code, -32001);
      assert.match(err.message, /Tool "secret" is not permitted/);
      return true;
    });
    assert.equal(up.calls.get('secret') ?? 0, calls, 'the upstream never ran the tool');
    // Without a resource grant the upstream resources are hidden and unreadable.
    const res = await c.client.listResources();
    assert.deepEqual(res.resources, []);
    await assert.rejects(c.client.readResource({ uri: 'upstream://readme' }), /not permitted/);
  } finally {
    await c.close();
  }
  const ev = await flushedEvents(t, p.id);
  const deny = ev.find((e) => e.event_type === 'deny' && e.tool === 'secret');
  assert.ok(deny, 'deny event for the refused tool');
  assert.equal(deny.details.reason, 'tool_not_permitted');
  assert.ok(ev.some((e) => e.event_type === 'allow' && e.tool === 'echo'), 'allow event for the permitted call');
});

test('a batch with one refused tool is refused as a whole', async () => {
  const k = await createKey(t, p, ['echo']);
  const init = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${k}` });
  const sid = init.headers.get('mcp-session-id')!;
  const r = await rawPost(p.pathUrl, [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'secret', arguments: {} } },
  ], { authorization: `Bearer ${k}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-03-26' });
  assert.equal(r.status, 200);
  assert.deepEqual(r.json.map((m: { id: number; error: { code: number } }) => [m.id, m.error.code]), [[1, -32004], [2, -32001]]);
  assert.match(r.json[1].error.message, /secret/);
  assert.match(r.json[0].error.message, /Batch rejected/);
});

// --- jwt mode ---

async function jwtSetup() {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const other = await generateKeyPair('RS256');
  const auth = { mode: 'jwt', issuer: 'https://idp.example', audience: 'tollgate-mcp', jwksJson: JSON.stringify({ keys: [jwk] }), clockSkewS: 30 };
  const pj = await createProxy(t, user, up.url, { auth });
  const sign = (claims: Record<string, unknown>, o: { kid?: string; key?: CryptoKey; exp?: number | string; aud?: string; iss?: string } = {}) =>
    new SignJWT({ ...claims }).setProtectedHeader({ alg: 'RS256', kid: o.kid ?? 'k1' }).setIssuer(o.iss ?? 'https://idp.example')
      .setAudience(o.aud ?? 'tollgate-mcp').setSubject('user-42').setIssuedAt().setExpirationTime(o.exp ?? '5m').sign(o.key ?? privateKey);
  return { pj, sign, otherKey: other.privateKey };
}

test('jwt mode: a valid token reaches every tool; expired, wrong audience/issuer, unknown key and alg none get 401', async () => {
  const { pj, sign, otherKey } = await jwtSetup();
  const good = await sign({});
  const c = await connect(t, pj, { token: good, via: 'host' });
  try {
    const tools = await c.client.listTools();
    assert.ok(tools.tools.length >= 5);
    const r = await c.client.callTool({ name: 'echo', arguments: { text: 'jwt' } });
    assert.deepEqual(r.content, [{ type: 'text', text: 'jwt' }]);
  } finally {
    await c.close();
  }
  const nowS = Math.floor(Date.now() / 1000);
  const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
  const body = Buffer.from(JSON.stringify({ iss: 'https://idp.example', aud: 'tollgate-mcp', sub: 'x', exp: nowS + 300 })).toString('base64url');
  const cases: Array<[string, string, string]> = [
    ['expired beyond the clock skew', await sign({}, { exp: nowS - 120 }), 'expired'],
    ['wrong audience', await sign({}, { aud: 'someone-else' }), 'claim_aud'],
    ['wrong issuer', await sign({}, { iss: 'https://evil.example' }), 'claim_iss'],
    ['signed by an unknown key', await sign({}, { key: otherKey, kid: 'k2' }), 'unknown_key'],
    ['signed by another key under the known kid', await sign({}, { key: otherKey }), 'bad_signature'],
    ['alg none', `${header}.${body}.`, 'alg_not_allowed'],
    ['not a JWT', 'garbage', 'malformed'],
  ];
  for (const [what, token, reason] of cases) {
    const r = await rawPost(pj.pathUrl, INIT, { authorization: `Bearer ${token}` });
    assert.equal(r.status, 401, what);
    assert.deepEqual(r.json, { error: 'Invalid token' }, what);
    const ev = await flushedEvents(t, pj.id);
    assert.equal(ev.at(-1)!.details.reason, reason, what);
  }
  // Within the clock skew an expired token still passes.
  const skewed = await rawPost(pj.pathUrl, INIT, { authorization: `Bearer ${await sign({}, { exp: nowS - 10 })}` });
  assert.equal(skewed.status, 200);
  // The PAT is refused with its own message in jwt mode too.
  const pat = await rawPost(pj.pathUrl, INIT, { authorization: `Bearer ${user.pat}` });
  assert.equal(pat.status, 401);
});

// --- jwt forgeries (issue "Hardening", part 2) ---

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** A compact JWS built by hand, so that headers a JOSE library would refuse to write can be sent. */
async function forge(header: Record<string, unknown>, payload: Record<string, unknown>, sign: (data: Buffer) => Promise<ArrayBuffer | Buffer>): Promise<string> {
  const input = `${b64(header)}.${b64(payload)}`;
  const signature = await sign(Buffer.from(input));
  return `${input}.${(Buffer.isBuffer(signature) ? signature : Buffer.from(new Uint8Array(signature))).toString('base64url')}`;
}

test('jwt mode forgeries: HS256 with the public key, kid confusion, embedded and remote keys, not yet valid, tampered: each 401 Invalid token', async () => {
  const rsa = await generateKeyPair('RS256', { extractable: true });
  const ec = await generateKeyPair('ES256', { extractable: true });
  const attacker = await generateKeyPair('RS256', { extractable: true });
  const attackerEc = await generateKeyPair('ES256');
  const rsaJwk = { ...(await exportJWK(rsa.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const ecJwk = { ...(await exportJWK(ec.publicKey)), kid: 'k2', alg: 'ES256', use: 'sig' };
  const auth = { mode: 'jwt', issuer: 'https://idp.example', audience: 'tollgate-mcp', jwksJson: JSON.stringify({ keys: [rsaJwk, ecJwk] }), clockSkewS: 30 };
  const pj = await createProxy(t, user, up.url, { auth });
  // A server the forged jku/x5u headers point at: nothing may fetch keys from it.
  const fetched: string[] = [];
  const keyServer = createServer((req, res) => { fetched.push(req.url ?? ''); res.end(JSON.stringify({ keys: [] })); });
  await new Promise<void>((r) => keyServer.listen(0, '127.0.0.1', r));
  const keyUrl = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}/jwks.json`;

  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: 'https://idp.example', aud: 'tollgate-mcp', sub: 'user-42', iat: now, exp: now + 300 };
  const rs256 = (key: CryptoKey) => (d: Buffer) => crypto.subtle.sign('RSASSA-PKCS1-v1_5', key, new Uint8Array(d));
  const es256 = (key: CryptoKey) => (d: Buffer) => crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key, new Uint8Array(d));
  const hs256 = (secret: string | Uint8Array) => async (d: Buffer) => createHmac('sha256', secret).update(d).digest();
  const pem = KeyObject.from(rsa.publicKey).export({ type: 'spki', format: 'pem' }) as string;
  const good = await forge({ alg: 'RS256', kid: 'k1' }, claims, rs256(rsa.privateKey));
  const [h, p, sig] = good.split('.') as [string, string, string];
  const tampered = `${h}.${b64({ ...claims, sub: 'admin' })}.${sig}`;

  const cases: Array<[string, string, string]> = [
    ['HS256 signed with the RSA public key (PEM)', await forge({ alg: 'HS256', kid: 'k1' }, claims, hs256(pem)), 'alg_not_allowed'],
    ['HS256 signed with the RSA public key (JWK JSON)', await forge({ alg: 'HS256', kid: 'k1' }, claims, hs256(JSON.stringify(rsaJwk))), 'alg_not_allowed'],
    ['HS256 signed with the RSA modulus', await forge({ alg: 'HS256' }, claims, hs256(Buffer.from(rsaJwk.n!, 'base64url'))), 'alg_not_allowed'],
    ['alg none with a known kid', `${b64({ alg: 'none', kid: 'k1' })}.${b64(claims)}.`, 'alg_not_allowed'],
    ['alg NONE in capitals', `${b64({ alg: 'NONE', kid: 'k1' })}.${b64(claims)}.`, 'alg_not_allowed'],
    ['RS256 header without its signature', `${h}.${p}.`, 'bad_signature'],
    ['a valid signature over another payload', tampered, 'bad_signature'],
    ['RS256 by the real key under the EC key\'s kid', await forge({ alg: 'RS256', kid: 'k2' }, claims, rs256(rsa.privateKey)), 'unknown_key'],
    ['ES256 by an attacker under the EC key\'s kid', await forge({ alg: 'ES256', kid: 'k2' }, claims, es256(attackerEc.privateKey)), 'bad_signature'],
    ['RS256 by an attacker without a kid', await forge({ alg: 'RS256' }, claims, rs256(attacker.privateKey)), 'bad_signature'],
    ['kid with path characters', await forge({ alg: 'RS256', kid: '../../k1' }, claims, rs256(rsa.privateKey)), 'unknown_key'],
    ['kid pointing at a device file', await forge({ alg: 'RS256', kid: '../../../../dev/null' }, claims, rs256(rsa.privateKey)), 'unknown_key'],
    ['kid with a NUL after a real one', await forge({ alg: 'RS256', kid: 'k1\u0000' }, claims, rs256(rsa.privateKey)), 'unknown_key'],
    ['kid that is not a string', await forge({ alg: 'RS256', kid: ['k1'] }, claims, rs256(rsa.privateKey)), 'unknown_key'],
    ['the attacker\'s key embedded as jwk', await forge({ alg: 'RS256', jwk: await exportJWK(attacker.publicKey) }, claims, rs256(attacker.privateKey)), 'bad_signature'],
    ['the attacker\'s keys by jku and x5u', await forge({ alg: 'RS256', kid: 'evil', jku: keyUrl, x5u: keyUrl }, claims, rs256(attacker.privateKey)), 'unknown_key'],
    ['an unknown critical header', await forge({ alg: 'RS256', kid: 'k1', crit: ['x-evil'], 'x-evil': true }, claims, rs256(rsa.privateKey)), 'alg_not_supported'],
    ['not yet valid (nbf beyond the clock skew)', await forge({ alg: 'RS256', kid: 'k1' }, { ...claims, nbf: now + 120 }, rs256(rsa.privateKey)), 'claim_nbf'],
    ['expired beyond the clock skew', await forge({ alg: 'RS256', kid: 'k1' }, { ...claims, exp: now - 120 }, rs256(rsa.privateKey)), 'expired'],
    ['no issuer', await forge({ alg: 'RS256', kid: 'k1' }, { ...claims, iss: undefined }, rs256(rsa.privateKey)), 'claim_iss'],
    ['an audience list without ours', await forge({ alg: 'RS256', kid: 'k1' }, { ...claims, aud: ['a', 'tollgate-mcp-x'] }, rs256(rsa.privateKey)), 'claim_aud'],
  ];
  try {
    for (const [what, token, reason] of cases) {
      const r = await rawPost(pj.pathUrl, INIT, { authorization: `Bearer ${token}` });
      assert.deepEqual([r.status, r.json], [401, { error: 'Invalid token' }], what);
      const ev = await flushedEvents(t, pj.id);
      assert.equal(ev.at(-1)!.details.reason, reason, what);
    }
    assert.deepEqual(fetched, [], 'no key was fetched from a URL in a token');
    // A token too big for node's 16 KiB of headers never reaches the verifier: 431, in JSON like every gateway error.
    const huge = await forge({ alg: 'RS256', kid: 'k1' }, { ...claims, pad: 'x'.repeat(17_000) }, rs256(rsa.privateKey));
    const big = await rawPost(pj.pathUrl, INIT, { authorization: `Bearer ${huge}` });
    assert.deepEqual([big.status, big.json], [431, { error: 'Request headers too large' }]);
    // The same keys sign valid tokens, and nbf within the skew passes: the refusals above are the forgeries' doing.
    assert.equal((await rawPost(pj.pathUrl, INIT, { authorization: `Bearer ${good}` })).status, 200);
    assert.equal((await rawPost(pj.pathUrl, INIT, { authorization: `Bearer ${await forge({ alg: 'ES256', kid: 'k2' }, { ...claims, nbf: now + 10 }, es256(ec.privateKey))}` })).status, 200);
  } finally {
    keyServer.close();
  }
});

test('jwt mode: a proxy stored without an audience or an issuer (before they were required) refuses every token with a message naming what is missing', async () => {
  const { pj, sign } = await jwtSetup();
  const token = await sign({});
  assert.equal((await rawPost(pj.pathUrl, INIT, { authorization: `Bearer ${token}` })).status, 200);
  const { bumpConfigVersion } = await import('../../snapshot/changes.ts');
  const q = t.app.services.db;
  const [row] = await q.query<{ auth: Record<string, unknown> }>('SELECT auth FROM mcp_servers WHERE id = $1', [pj.id]);
  const saved = row!.auth;
  // The rows as an older release wrote them: the record and the gateway plugin, which is what the gateway reads.
  const stripClaims = async (claims: string[]) => {
    const legacy = JSON.stringify(Object.fromEntries(Object.entries(saved).filter(([k]) => !claims.includes(k))));
    await q.query('UPDATE mcp_servers SET auth = $2::jsonb WHERE id = $1', [pj.id, legacy]);
    await q.query('UPDATE gateway_plugins SET auth = $2::jsonb WHERE service_id = (SELECT id FROM gateway_services WHERE proxy_id = $1)', [pj.id, legacy]);
    await t.app.services.configChanged(await bumpConfigVersion(q));
  };
  const cases: Array<[string[], string]> = [
    [['audience'], 'audience'],
    [['issuer'], 'issuer'],
    [['audience', 'issuer'], 'audience and no issuer'],
  ];
  for (const [claims, missing] of cases) {
    await stripClaims(claims);
    const before = up.requests.length;
    // A token the old record would have let in, since it matches whatever is still pinned.
    const r = await rawPost(pj.pathUrl, INIT, { authorization: `Bearer ${token}` });
    assert.deepEqual([r.status, r.json], [401, {
      error: `This proxy's JWT authentication requires an audience and an issuer, and it has no ${missing}; update the proxy`,
    }], claims.join());
    assert.equal(up.requests.length, before, 'the upstream is never reached');
    const ev = await flushedEvents(t, pj.id);
    assert.deepEqual([ev.at(-1)!.event_type, ev.at(-1)!.details.reason], ['deny', 'jwt_pins_missing'], claims.join());
  }
  // The record reads back as stored, and updating it with both pins opens the proxy again.
  const legacy = (await t.request('GET', `/api/mcp/${pj.id}`, { token: user.pat })).body.auth as Record<string, unknown>;
  assert.deepEqual([legacy.audience, legacy.issuer], [undefined, undefined]);
  const fixed = await t.request('PATCH', `/api/mcp/${pj.id}`, { token: user.pat, body: { auth: saved } });
  assert.equal(fixed.status, 200, fixed.text);
  assert.equal((await rawPost(pj.pathUrl, INIT, { authorization: `Bearer ${token}` })).status, 200);
});
