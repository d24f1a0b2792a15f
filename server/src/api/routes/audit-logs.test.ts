// GET /api/logs and GET /api/logs/chart through HTTP (spec "Audit logs, overview, health", "Audit log entry", Events).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AuditEvent } from '../../audit/writer.ts';
import { eventually } from '@tollgate/testkit/eventually.ts';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';

const H = 3600;
const D = 86400;
/** A UTC midnight in the past, far from "now", so these events never mix with the PAT's own api_request events. */
const T0 = 1_600_041_600;

let t: TestApp;
before(async () => { t = await startTestApp(); });
after(async () => { await t.close(); });

async function seed(u: TestUser, events: Array<Partial<AuditEvent> & { timestamp: number; eventType: string }>): Promise<void> {
  for (const e of events) t.app.services.audit.write({ userId: u.userId, clientIp: '203.0.113.7', ...e });
  await t.app.services.audit.flush();
}

async function get(u: TestUser, path: string) {
  return t.request('GET', path, { token: u.pat });
}

test('GET /api/logs returns the caller\'s entries, most recent first, with the spec fields', async () => {
  const u = await t.createUser();
  const mcp = randomUUID();
  const llm = randomUUID();
  const future = Math.floor(Date.now() / 1000) + 10 * D; // newer than any api_request this test causes
  await seed(u, [
    { timestamp: future + 1, eventType: 'allow', mcpUuid: mcp, tool: 'search', details: { method: 'tools/call' } },
    { timestamp: future + 3, eventType: 'deny', mcpUuid: mcp, tool: 'delete', ruleName: 'no-delete', details: { status: 403 } },
    { timestamp: future + 2, eventType: 'allow', llmUuid: llm, model: 'gpt-4o' },
  ]);
  const r = await get(u, '/api/logs');
  assert.equal(r.status, 200);
  assert.equal(r.body.page, 1);
  assert.equal(r.body.limit, 50);
  assert.ok(r.body.total >= 3);
  assert.deepEqual(r.body.logs.slice(0, 3), [
    { timestamp: future + 3, event_type: 'deny', client_ip: '203.0.113.7', mcp_uuid: mcp, tool: 'delete', rule_name: 'no-delete', details: { status: 403 } },
    { timestamp: future + 2, event_type: 'allow', client_ip: '203.0.113.7', llm_uuid: llm, model: 'gpt-4o', details: {} },
    { timestamp: future + 1, event_type: 'allow', client_ip: '203.0.113.7', mcp_uuid: mcp, tool: 'search', details: { method: 'tools/call' } },
  ]);
});

test('page and limit paginate; total counts every match', async () => {
  const u = await t.createUser();
  await seed(u, Array.from({ length: 7 }, (_, i) => ({ timestamp: T0 + i, eventType: 'allow', details: { i } })));
  const window = `from=${T0}&to=${T0 + 100}`;
  const p1 = await get(u, `/api/logs?${window}&limit=3`);
  assert.equal(p1.status, 200);
  assert.equal(p1.body.total, 7);
  assert.deepEqual(p1.body.logs.map((e: { details: { i: number } }) => e.details.i), [6, 5, 4]);
  const p3 = await get(u, `/api/logs?${window}&limit=3&page=3`);
  assert.deepEqual(p3.body.logs.map((e: { details: { i: number } }) => e.details.i), [0]);
  assert.equal(p3.body.page, 3);
  assert.equal(p3.body.limit, 3);
  const p9 = await get(u, `/api/logs?${window}&limit=3&page=9`);
  assert.deepEqual(p9.body.logs, []);
  assert.equal(p9.body.total, 7);
});

test('event_type, from and to filter (bounds inclusive); event_type takes a list', async () => {
  const u = await t.createUser();
  await seed(u, [
    { timestamp: T0 + 10, eventType: 'allow' },
    { timestamp: T0 + 20, eventType: 'deny' },
    { timestamp: T0 + 30, eventType: 'block' },
    { timestamp: T0 + 40, eventType: 'ip_blocked' },
    { timestamp: T0 + 50, eventType: 'deny' },
  ]);
  const types = async (qs: string) => {
    const r = await get(u, `/api/logs?${qs}`);
    assert.equal(r.status, 200, r.text);
    return r.body.logs.map((e: { timestamp: number; event_type: string }) => `${e.timestamp - T0}:${e.event_type}`);
  };
  assert.deepEqual(await types(`event_type=deny&to=${T0 + 1000}`), ['50:deny', '20:deny']);
  assert.deepEqual(await types(`event_type=deny,block&to=${T0 + 1000}`), ['50:deny', '30:block', '20:deny']);
  assert.deepEqual(await types(`from=${T0 + 20}&to=${T0 + 40}`), ['40:ip_blocked', '30:block', '20:deny']);
  assert.deepEqual(await types(`from=${T0 + 20}&to=${T0 + 40}&event_type=ip_blocked`), ['40:ip_blocked']);
  assert.deepEqual(await types(`to=${T0 + 9}`), []);
  const r = await get(u, `/api/logs?event_type=nothing_like_this&to=${T0 + 1000}`);
  assert.equal(r.body.total, 0);
});

test('mcp_uuid, llm_uuid, tool and model filter by equality, with the other filters; total counts the matches', async () => {
  const u = await t.createUser();
  const [mcpA, mcpB, llm] = [randomUUID(), randomUUID(), randomUUID()];
  await seed(u, [
    { timestamp: T0 + 10, eventType: 'allow', mcpUuid: mcpA, tool: 'search' },
    { timestamp: T0 + 20, eventType: 'deny', mcpUuid: mcpA, tool: 'delete' },
    { timestamp: T0 + 30, eventType: 'allow', mcpUuid: mcpB, tool: 'search' },
    { timestamp: T0 + 40, eventType: 'allow', llmUuid: llm, model: 'gpt-4o' },
    { timestamp: T0 + 50, eventType: 'deny', llmUuid: llm, model: 'o1' },
  ]);
  const api = t.client(u.pat);
  const at = async (query: Record<string, string | number>) => {
    const r = await api.call('GET /api/logs', { query: { to: T0 + 1000, ...query } });
    assert.ok(r.ok, JSON.stringify(r));
    return [r.body.total, r.body.logs.map((e) => e.timestamp - T0)];
  };
  assert.deepEqual(await at({ mcp_uuid: mcpA }), [2, [20, 10]]);
  assert.deepEqual(await at({ tool: 'search' }), [2, [30, 10]]);
  assert.deepEqual(await at({ mcp_uuid: mcpA, tool: 'search' }), [1, [10]]);
  assert.deepEqual(await at({ llm_uuid: llm, event_type: 'deny' }), [1, [50]]);
  assert.deepEqual(await at({ model: 'gpt-4o' }), [1, [40]]);
  assert.deepEqual(await at({ model: "gpt-4o' OR '1'='1" }), [0, []], 'a value is compared, never interpreted');
  const bad = await api.call('GET /api/logs', { query: { tool: 'x'.repeat(257) } });
  assert.equal(bad.ok ? 200 : bad.error.status, 400);
});

test('bad query parameters return 400 with a clear message, never 500', async () => {
  const u = await t.createUser();
  const cases: Array<[string, string]> = [
    ['page=0', 'page: must be an integer from 1 to 100000'],
    ['page=x', 'page: must be an integer from 1 to 100000'],
    ['limit=0', 'limit: must be an integer from 1 to 500'],
    ['limit=501', 'limit: must be an integer from 1 to 500'],
    ['limit=10%3B%20DROP%20TABLE%20audit_events', 'limit: must be an integer from 1 to 500'],
    ['from=yesterday', 'from: must be a Unix timestamp in seconds'],
    ['to=-1', 'to: must be a Unix timestamp in seconds'],
    ['from=20&to=10', 'from: must not be after to'],
    ['event_type=%00', 'event_type: must not contain NUL characters'],
    ['event_type=deny,a%00b', 'event_type: must not contain NUL characters'],
  ];
  for (const [qs, msg] of cases) {
    const r = await get(u, `/api/logs?${qs}`);
    assert.equal(r.status, 400, qs);
    assert.deepEqual(r.body, { error: msg });
  }
  const ok = await get(u, '/api/logs?limit=500');
  assert.equal(ok.status, 200);
});

test('tenant isolation: a user sees none of another user\'s events in logs or chart', async () => {
  const a = await t.createUser();
  const b = await t.createUser();
  await seed(a, [{ timestamp: T0 + 5, eventType: 'allow' }, { timestamp: T0 + 6, eventType: 'deny' }]);
  const logs = await get(b, `/api/logs?from=${T0}&to=${T0 + D}`);
  assert.equal(logs.status, 200);
  assert.deepEqual(logs.body.logs, []);
  assert.equal(logs.body.total, 0);
  const chart = await get(b, `/api/logs/chart?bucket=day&from=${T0}&to=${T0}`);
  assert.deepEqual(chart.body.buckets, [{ ts: T0, allow: 0, deny: 0, error: 0 }]);
  const own = await get(a, `/api/logs/chart?bucket=day&from=${T0}&to=${T0}`);
  assert.deepEqual(own.body.buckets, [{ ts: T0, allow: 1, deny: 1, error: 0 }]);
});

test('a PAT request is recorded as an api_request event readable through /api/logs', async () => {
  const u = await t.createUser();
  await get(u, '/api/keys');
  // The event may be recorded once the response has gone out, so it is looked for until it is there.
  const entry = await eventually(async () => {
    await t.app.services.audit.flush();
    const r = await get(u, '/api/logs?event_type=api_request');
    return r.body.logs.find((e: { details: { path?: string } }) => e.details.path === '/api/keys');
  }, { what: 'the api_request event of GET /api/keys' });
  assert.equal(entry.details.method, 'GET');
  assert.equal(entry.details.status, 200);
  assert.equal(entry.details.email, u.email);
});

test('GET /api/logs/chart buckets by UTC hour: allow, deny (deny, block and the gateway\'s specific denials) and error; zero-filled', async () => {
  const u = await t.createUser();
  await seed(u, [
    { timestamp: T0 + 5, eventType: 'allow' },
    { timestamp: T0 + H - 1, eventType: 'allow' },
    { timestamp: T0 + 10, eventType: 'deny' },
    { timestamp: T0 + 11, eventType: 'block' },
    { timestamp: T0 + H, eventType: 'error' },
    { timestamp: T0 + H + 7, eventType: 'ip_blocked' },
    { timestamp: T0 + H + 8, eventType: 'api_request' },
    { timestamp: T0 + H + 9, eventType: 'dlp_match' },
    { timestamp: T0 + 2 * H + 1, eventType: 'lambda_error' },
    { timestamp: T0 + 3 * H + 59, eventType: 'block' },
    { timestamp: T0 + 4 * H, eventType: 'allow' },
  ]);
  const r = await get(u, `/api/logs/chart?bucket=hour&from=${T0 + 30}&to=${T0 + 3 * H + 60}`);
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, {
    buckets: [
      { ts: T0, allow: 2, deny: 2, error: 0 },
      { ts: T0 + H, allow: 0, deny: 1, error: 1 },
      { ts: T0 + 2 * H, allow: 0, deny: 0, error: 1 },
      { ts: T0 + 3 * H, allow: 0, deny: 1, error: 0 },
    ],
  });
});

test('GET /api/logs/chart buckets by UTC day', async () => {
  const u = await t.createUser();
  await seed(u, [
    { timestamp: T0 + 1, eventType: 'allow' },
    { timestamp: T0 + D - 1, eventType: 'deny' },
    { timestamp: T0 + D, eventType: 'allow' },
    { timestamp: T0 + 2 * D + 5 * H, eventType: 'error' },
  ]);
  const r = await get(u, `/api/logs/chart?bucket=day&from=${T0}&to=${T0 + 2 * D}`);
  assert.deepEqual(r.body.buckets, [
    { ts: T0, allow: 1, deny: 1, error: 0 },
    { ts: T0 + D, allow: 1, deny: 0, error: 0 },
    { ts: T0 + 2 * D, allow: 0, deny: 0, error: 1 },
  ]);
});

test('GET /api/logs/chart default ranges: 24 hourly or 30 daily UTC-aligned buckets ending now', async () => {
  const u = await t.createUser();
  const now = Math.floor(Date.now() / 1000);
  await seed(u, [{ timestamp: now - 60, eventType: 'allow' }]);
  const hourly = await get(u, '/api/logs/chart');
  assert.equal(hourly.status, 200);
  const hb = hourly.body.buckets as Array<{ ts: number; allow: number }>;
  assert.equal(hb.length, 24);
  assert.ok(hb.every((b, i) => b.ts % H === 0 && (i === 0 || b.ts - hb[i - 1]!.ts === H)));
  assert.ok(hb.at(-1)!.ts <= now && now < hb.at(-1)!.ts + H + 5);
  assert.equal(hb.reduce((n, b) => n + b.allow, 0), 1);
  const daily = await get(u, '/api/logs/chart?bucket=day');
  const db = daily.body.buckets as Array<{ ts: number }>;
  assert.equal(db.length, 30);
  assert.ok(db.every((b) => b.ts % D === 0));
});

test('GET /api/logs/chart rejects a bad bucket, a reversed range and too many buckets with 400', async () => {
  const u = await t.createUser();
  const cases: Array<[string, string]> = [
    ['bucket=minute', 'bucket: must be hour or day'],
    [`from=${T0 + 10}&to=${T0}`, 'from: must not be after to'],
    [`bucket=hour&from=${T0}&to=${T0 + 1000 * H}`, 'range too large: at most 1000 hour buckets'],
    ['from=abc', 'from: must be a Unix timestamp in seconds'],
  ];
  for (const [qs, msg] of cases) {
    const r = await get(u, `/api/logs/chart?${qs}`);
    assert.equal(r.status, 400, qs);
    assert.deepEqual(r.body, { error: msg });
  }
});

test('the audit endpoints need a credential', async () => {
  for (const p of ['/api/logs', '/api/logs/chart']) {
    const r = await t.request('GET', p);
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { error: 'Not authenticated' });
  }
});
