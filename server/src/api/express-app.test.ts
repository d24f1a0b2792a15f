// The management API's request lifecycle on express, through real HTTP: a small route table of probe routes served
// by createApiServer with the services of a real test app (database, audit writer), plus a capturing logger.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { DatastoreUnavailable } from '../db/db.ts';
import { MAX_BODY_BYTES } from '../http/body.ts';
import { Reply, Router } from '../http/router.ts';
import type { Logger } from '../log.ts';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { createApiServer } from './server.ts';
import { DASHBOARD_NOT_BUILT } from './dashboard/static-files.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface LogLine { level: string; msg: string; fields: Record<string, unknown> | undefined }

function capturingLogger(lines: LogLine[]): Logger {
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => { lines.push({ level, msg, fields }); };
  const log: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => log };
  return log;
}

function probeRoutes(): Router {
  const r = new Router();
  r.add('POST', '/t/echo', 'user', async (ctx) => ({ body: await ctx.json() }));
  r.add('POST', '/t/ignore', 'user', async () => ({ ignored: true }));
  r.add('GET', '/t/boom', 'user', async () => { throw new Error('secret internal detail'); });
  r.add('GET', '/t/datastore', 'user', async () => { throw new DatastoreUnavailable('database'); });
  r.add('GET', '/t/half', 'user', async (ctx) => {
    ctx.res.writeHead(200, { 'content-type': 'application/json' });
    ctx.res.write('{"partial":');
    throw new Error('failed mid-response');
  });
  r.add('GET', '/t/session', 'session', async () => ({ ok: true }));
  r.add('GET', '/t/reply', 'public', async () => new Reply(202, { accepted: true }, { 'x-extra': 'yes' }));
  r.add('GET', '/t/items/:id', 'public', async (ctx) => ({ id: ctx.params.id, path: ctx.path, query: [...ctx.query] }));
  return r;
}

let t: TestApp;
let u: TestUser;
let server: Server;
let base: string;
const logs: LogLine[] = [];

before(async () => {
  t = await startTestApp({ role: 'api' });
  u = await t.createUser();
  // No dashboard build here: `/` is then the API's own answer (the dashboard has its tests in test/dashboard/).
  const config = { ...t.app.services.config, dashboardDir: join(tmpdir(), 'tollgate-no-dashboard') };
  server = createApiServer(probeRoutes(), { ...t.app.services, config, log: capturingLogger(logs) });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await t.close();
});

const auth = () => ({ authorization: `Bearer ${u.pat}` });

async function call(method: string, path: string, init: { headers?: Record<string, string>; body?: string | Buffer } = {}) {
  const body = typeof init.body === 'string' || init.body === undefined ? init.body : new Uint8Array(init.body);
  const r = await fetch(base + path, { method, headers: init.headers, body });
  const text = await r.text();
  return { status: r.status, headers: r.headers, text, json: text ? JSON.parse(text) as unknown : undefined };
}

/** node:http, for request targets fetch would normalise before sending (dot segments, double slashes). */
function rawGet(path: string, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(base + '/', { path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => { text += c; }).on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject).end();
  });
}

async function patEvents(): Promise<Array<{ method: string; path: string; status: number; ip: string }>> {
  await t.app.services.audit.flush();
  const rows = await t.app.services.db.query<{ client_ip: string; details: { method: string; path: string; status: number } }>(
    `SELECT client_ip, details FROM audit_events WHERE user_id = $1 AND event_type = 'api_request' ORDER BY id`, [u.userId]);
  return rows.map((r) => ({ method: r.details.method, path: r.details.path, status: r.details.status, ip: r.client_ip }));
}

const JSON_TYPE = { 'content-type': 'application/json' };
const INVALID_JSON = { error: 'Invalid JSON body' };

test('a JSON response carries exactly the spec\'s headers: JSON content type, no-store, length; no X-Powered-By, no ETag', async () => {
  const r = await call('POST', '/t/echo', { headers: { ...auth(), ...JSON_TYPE }, body: '{"a":1}' });
  assert.deepEqual([r.status, r.json], [200, { body: { a: 1 } }]);
  assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(r.headers.get('cache-control'), 'no-store');
  assert.equal(r.headers.get('content-length'), String(Buffer.byteLength(r.text)));
  assert.equal(r.headers.get('x-powered-by'), null);
  assert.equal(r.headers.get('etag'), null);
  const names = [...r.headers.keys()].sort();
  assert.deepEqual(names, ['cache-control', 'connection', 'content-length', 'content-type', 'date', 'keep-alive']);
});

test('a Reply sets its status and extra headers; a conditional request still gets the full answer', async () => {
  const r = await call('GET', '/t/reply', { headers: { 'if-none-match': '*' } });
  assert.deepEqual([r.status, r.json, r.headers.get('x-extra')], [202, { accepted: true }, 'yes']);
});

test('a body that is not JSON, or has no JSON content type, is 400 Invalid JSON body when the handler reads it', async () => {
  for (const [headers, body] of [
    [JSON_TYPE, '{"a":'], // malformed
    [JSON_TYPE, ''], // empty: not JSON (express.json would read it as {})
    [JSON_TYPE, '\ufeff{}'], // a byte-order mark is not JSON either
    [{}, '{"a":1}'], // no content type
    [{ 'content-type': 'text/plain' }, '{"a":1}'],
    [{ 'content-type': 'application/x-www-form-urlencoded' }, 'a=1'],
    [{ ...JSON_TYPE, 'content-encoding': 'gzip' }, '{"a":1}'], // compressed bodies are refused unread
  ] as const) {
    const r = await call('POST', '/t/echo', { headers: { ...auth(), ...headers }, body });
    assert.deepEqual([r.status, r.json], [400, INVALID_JSON], JSON.stringify([headers, body]));
  }
});

test('any JSON value and any application/*+json type is a body; the charset parameter does not change the parse', async () => {
  for (const [type, body, expected] of [
    ['application/vnd.tollgate+json', '{"a":1}', { a: 1 }],
    ['Application/JSON; charset=UTF-8', '"text"', 'text'],
    ['application/json; charset=iso-8859-1', 'null', null],
    ['application/json; odd-parameter', '[1,2]', [1, 2]],
  ] as const) {
    const r = await call('POST', '/t/echo', { headers: { ...auth(), 'content-type': type }, body });
    assert.deepEqual([r.status, r.json], [200, { body: expected }], type);
  }
});

test('a NUL character in a key or string value is a 400 naming the field', async () => {
  const r = await call('POST', '/t/echo', { headers: { ...auth(), ...JSON_TYPE }, body: '{"a":{"b":["x","y\\u0000"]}}' });
  assert.deepEqual([r.status, r.json], [400, { error: 'a.b[1]: must not contain NUL characters' }]);
  const top = await call('POST', '/t/echo', { headers: { ...auth(), ...JSON_TYPE }, body: '"\\u0000"' });
  assert.deepEqual([top.status, top.json], [400, { error: 'body: must not contain NUL characters' }]);
  const key = await call('POST', '/t/echo', { headers: { ...auth(), ...JSON_TYPE }, body: '{"a":1,"b\\u0000":"c\\u0000"}' });
  assert.deepEqual([key.status, key.json], [400, { error: '"b\\u0000": must not contain NUL characters' }], 'a key that is not a plain name is shown as a JSON string');
  // Found by the fuzzer: a key of white space used to start the message with it.
  const blank = await call('POST', '/t/echo', { headers: { ...auth(), ...JSON_TYPE }, body: '{"name":"x","\\t\\n":"\\u0000"}' });
  assert.deepEqual([blank.status, blank.json], [400, { error: '"\\t\\n": must not contain NUL characters' }]);
});

test('a NUL in a query parameter is a 400 naming it when the handler reads the query, after authentication', async () => {
  const r = await call('GET', '/t/items/1?a=1&b=x%00y');
  assert.deepEqual([r.status, r.json], [400, { error: 'b: must not contain NUL characters' }]);
  const key = await call('GET', '/t/items/1?a%00=1');
  assert.deepEqual([key.status, key.json], [400, { error: 'query: must not contain NUL characters' }]);
  const unread = await call('POST', '/t/ignore?x=%00', { headers: auth() });
  assert.equal(unread.status, 200, 'a handler that does not read the query never fails on it');
  const anonymous = await call('GET', '/t/boom?x=%00');
  assert.equal(anonymous.status, 401, 'authentication comes first');
});

test('a NUL nested 100,000 levels deep is the same 400, its path cut short, not a stack overflow', async () => {
  const depth = 100_000;
  const r = await call('POST', '/t/echo', { headers: { ...auth(), ...JSON_TYPE }, body: `${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}` });
  assert.deepEqual([r.status, r.json], [400, { error: `${'[0]'.repeat(66)}[0…: must not contain NUL characters` }]);
});

test('a body over 8 MiB is 413 Request body too large; 8 MiB exactly is read', async () => {
  const fits = Buffer.concat([Buffer.from('{"a":1}'), Buffer.alloc(MAX_BODY_BYTES - 7, 0x20)]);
  const ok = await call('POST', '/t/echo', { headers: { ...auth(), ...JSON_TYPE }, body: fits });
  assert.deepEqual([ok.status, ok.json], [200, { body: { a: 1 } }]);
  const over = await call('POST', '/t/echo', { headers: { ...auth(), ...JSON_TYPE }, body: Buffer.concat([fits, Buffer.from(' ')]) });
  assert.deepEqual([over.status, over.json], [413, { error: 'Request body too large' }]);
});

test('a handler that does not read the body never fails on it; authentication comes before the body', async () => {
  const ignored = await call('POST', '/t/ignore', { headers: { ...auth(), ...JSON_TYPE }, body: '{"broken' });
  assert.deepEqual([ignored.status, ignored.json], [200, { ignored: true }]);
  const anonymous = await call('POST', '/t/echo', { headers: JSON_TYPE, body: '{"broken' });
  assert.deepEqual([anonymous.status, anonymous.json], [401, { error: 'Not authenticated' }]);
});

test('an unknown path, and a known path in a method it does not register (HEAD and OPTIONS too), is 404 Endpoint not found', async () => {
  for (const [method, path] of [['GET', '/t/nope'], ['POST', '/'], ['PUT', '/t/echo'], ['GET', '/t/echo'], ['OPTIONS', '/t/reply'], ['DELETE', '/t/reply'], ['GET', '/T/reply']]) {
    const r = await call(method!, path!, { headers: auth() });
    assert.deepEqual([r.status, r.json], [404, { error: 'Endpoint not found' }], `${method} ${path}`);
  }
  const root = await call('GET', '/', { headers: auth() });
  assert.deepEqual([root.status, root.json], [404, { error: DASHBOARD_NOT_BUILT }], 'GET / is the dashboard, or says how to build it');
  const head = await call('HEAD', '/t/reply');
  assert.deepEqual([head.status, head.text, head.headers.get('content-type')], [404, '', 'application/json; charset=utf-8']);
});

test('routing matches the parsed path as before: empty and dot segments ignored; a param is decoded, or kept as sent when it cannot be', async () => {
  assert.deepEqual(await rawGet('/t//items/a%20b/?x=1&x=2&y=a+b'), {
    status: 200, json: { id: 'a b', path: '/t//items/a%20b/', query: [['x', '1'], ['x', '2'], ['y', 'a b']] },
  });
  assert.deepEqual((await rawGet('/t/other/../items/%E0%A4%A')).json, { id: '%E0%A4%A', path: '/t/items/%E0%A4%A', query: [] });
  assert.deepEqual((await rawGet('/t/items/a%2Fb')).json, { id: 'a/b', path: '/t/items/a%2Fb', query: [] });
});

test('a request target the URL parser refuses names no endpoint: 404 in JSON, never an error that escapes', async () => {
  for (const target of ['http://[bad/t/reply', 'http://host:99999/t/reply']) {
    assert.deepEqual(await rawGet(target), { status: 404, json: { error: 'Endpoint not found' } }, target);
  }
});

test('a thrown error that is not an HttpError is a 500 without detail, logged in full', async () => {
  logs.length = 0;
  const r = await call('GET', '/t/boom?q=1', { headers: auth() });
  assert.deepEqual([r.status, r.json], [500, { error: 'Internal server error' }]);
  assert.ok(!r.text.includes('secret'));
  const line = logs.find((l) => l.level === 'error');
  assert.equal(line?.msg, 'unhandled error in management API');
  assert.equal((line?.fields?.err as Error).message, 'secret internal detail');
  assert.deepEqual([line?.fields?.method, line?.fields?.path], ['GET', '/t/boom?q=1']);
});

test('an unreachable datastore is a 503 with the spec message, logged as a warning', async () => {
  logs.length = 0;
  const r = await call('GET', '/t/datastore', { headers: auth() });
  assert.deepEqual([r.status, r.json], [503, { error: 'Service unavailable: the datastore is not reachable' }]);
  assert.deepEqual(logs.map((l) => [l.level, l.msg, l.fields?.store]), [['warn', 'datastore unavailable', 'database']]);
});

test('an error after the response started cuts the connection instead of sending a second answer', async () => {
  await assert.rejects(async () => {
    const r = await fetch(`${base}/t/half`, { headers: auth() });
    await r.text();
  });
});

test('every PAT request is recorded with its final status, refused and failed ones too; X-Forwarded-For is not the client IP', async () => {
  const before = (await patEvents()).length;
  await call('GET', '/t/session', { headers: { ...auth(), 'x-forwarded-for': '203.0.113.9' } }); // session only: 403
  await call('POST', '/t/echo', { headers: { ...auth(), ...JSON_TYPE }, body: '{' }); // 400
  await call('GET', '/t/boom', { headers: auth() }); // 500
  await call('GET', '/t/nope', { headers: auth() }); // no route: not a request to any endpoint, not recorded
  await call('GET', '/t/reply', { headers: auth() }); // public: the Bearer is not looked at, so not a PAT request
  assert.deepEqual((await patEvents()).slice(before), [
    { method: 'GET', path: '/t/session', status: 403, ip: '127.0.0.1' },
    { method: 'POST', path: '/t/echo', status: 400, ip: '127.0.0.1' },
    { method: 'GET', path: '/t/boom', status: 500, ip: '127.0.0.1' },
  ]);
});
