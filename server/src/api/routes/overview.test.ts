// GET /api/overview and GET /api/overview/feed through HTTP.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { validateRules } from '../../gateway/rules/validate.ts';
import { setRules } from '../../proxies/gateway-objects.ts';
import { insertLlmFixture, insertMcpFixture } from '@tollgate/testkit/fixtures.ts';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';

let t: TestApp;
before(async () => { t = await startTestApp(); });
after(async () => { await t.close(); });

const now = () => Math.floor(Date.now() / 1000);

const ZERO = { totalMcps: 0, totalLlmProxies: 0, totalKeys: 0, activeRules: 0, events24h: 0, allow24h: 0, deny24h: 0, error24h: 0 };

async function putRules(proxyId: string, kind: 'mcp' | 'llm', rules: unknown[]): Promise<void> {
  const s = t.app.services;
  const v = await s.db.tx((q) => setRules(q, proxyId, validateRules(kind, rules), now()));
  await s.configChanged(v);
}

const acl = (enabled?: boolean) => ({ rule_type: 'ip_acl', tools: ['*'], action: 'deny', cidrs: ['198.51.100.0/24'], ...(enabled === undefined ? {} : { enabled }) });

async function overview(u: TestUser) {
  const r = await t.request('GET', '/api/overview', { token: u.pat });
  assert.equal(r.status, 200);
  return r.body;
}

test('a new user\'s overview is all zeros', async () => {
  const u = await t.createUser();
  assert.deepEqual(await overview(u), ZERO);
});

test('overview counts proxies, client keys (not the PAT), enabled rules and last-24h traffic outcomes', async () => {
  const u = await t.createUser();
  const other = await t.createUser();
  const s = t.app.services;
  const m1 = await insertMcpFixture(s, u.userId, { tools: ['a'] });
  await insertMcpFixture(s, u.userId);
  const l1 = await insertLlmFixture(s, u.userId);
  const om = await insertMcpFixture(s, other.userId);
  await putRules(m1.id, 'mcp', [acl(), acl(false), acl(true)]);
  await putRules(l1.id, 'llm', [acl()]);
  await putRules(om.id, 'mcp', [acl(), acl()]);
  for (const name of ['k1', 'k2', 'k3']) assert.equal((await t.request('POST', '/api/keys', { token: u.pat, body: { name } })).status, 201);
  assert.equal((await t.request('POST', '/api/keys', { token: other.pat, body: { name: 'x' } })).status, 201);
  const n = now();
  const events: Array<[string, number, string]> = [
    ['allow', n - 10, u.userId], ['allow', n - 3600, u.userId], ['deny', n - 20, u.userId], ['block', n - 30, u.userId],
    ['error', n - 40, u.userId], ['ip_blocked', n - 50, u.userId], ['dlp_match', n - 55, u.userId], ['api_request', n - 5, u.userId],
    ['allow', n - 86_400 - 60, u.userId], // older than 24 h
    ['allow', n - 10, other.userId],
  ];
  for (const [eventType, timestamp, userId] of events) s.audit.write({ userId, eventType, timestamp, clientIp: '192.0.2.1' });
  await s.audit.flush();
  assert.deepEqual(await overview(u), {
    totalMcps: 2, totalLlmProxies: 1, totalKeys: 3, activeRules: 3, events24h: 7, allow24h: 2, deny24h: 3, error24h: 1,
  });
});

test('GET /api/overview/feed returns the most recent entries, default 20, at most 100', async () => {
  const u = await t.createUser();
  const other = await t.createUser();
  const s = t.app.services;
  const base = now() + 100_000; // newer than the api_request events these calls record
  for (let i = 0; i < 25; i++) s.audit.write({ userId: u.userId, eventType: i % 2 ? 'allow' : 'deny', timestamp: base + i, clientIp: '192.0.2.1', tool: `t${i}` });
  s.audit.write({ userId: other.userId, eventType: 'allow', timestamp: base + 1000, clientIp: '192.0.2.9' });
  await s.audit.flush();
  const r = await t.request('GET', '/api/overview/feed', { token: u.pat });
  assert.equal(r.status, 200);
  assert.equal(r.body.entries.length, 20);
  assert.deepEqual(r.body.entries.slice(0, 2), [
    { timestamp: base + 24, event_type: 'deny', client_ip: '192.0.2.1', tool: 't24', details: {} },
    { timestamp: base + 23, event_type: 'allow', client_ip: '192.0.2.1', tool: 't23', details: {} },
  ]);
  assert.ok(!r.body.entries.some((e: { client_ip: string }) => e.client_ip === '192.0.2.9'), 'no other user\'s events');
  const five = await t.request('GET', '/api/overview/feed?limit=5', { token: u.pat });
  assert.deepEqual(five.body.entries.map((e: { tool: string }) => e.tool), ['t24', 't23', 't22', 't21', 't20']);
  for (const bad of ['0', '101', 'x']) {
    const b = await t.request('GET', `/api/overview/feed?limit=${bad}`, { token: u.pat });
    assert.equal(b.status, 400);
    assert.deepEqual(b.body, { error: 'limit: must be an integer from 1 to 100' });
  }
  assert.equal((await t.request('GET', '/api/overview/feed?limit=100', { token: u.pat })).status, 200);
});

test('overview endpoints need a credential', async () => {
  for (const p of ['/api/overview', '/api/overview/feed']) {
    const r = await t.request('GET', p);
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { error: 'Not authenticated' });
  }
});
