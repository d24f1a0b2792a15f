// Hostile HTTP against the management API (issue "Hardening", part 2): bodies over the limit, JSON nested a hundred
// thousand levels deep, CR/LF in header values and encoded in the path, thousands of headers, ambiguous framing, and
// traversal strings in every path parameter of every route. Each answer is the spec's JSON `{error}` with a 4xx, in
// bounded time, and a refused request changes nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { startFakeProvider, type FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { MAX_BODY_BYTES } from '../../server/src/http/body.ts';
import { answerProblems, routeOf } from './checks.ts';
import { httpClient } from './client.ts';
import { changedTables, fingerprinter, type Fingerprinter } from './fingerprint.ts';
import { rawExchange } from './raw-socket.ts';
import { refKindOf, TRAVERSALS } from './request-arbitrary.ts';
import { fillPath, loadRoutes, type FuzzRoute } from './routes.ts';
import { fuzzLookup, seed } from './seed.ts';
import { World } from './world.ts';

let t: TestApp;
let up: McpUpstream;
let fake: FakeProvider;
let user: TestUser;
let routes: FuzzRoute[];
let fp: Fingerprinter;
let client: ReturnType<typeof httpClient>;
let world: World;

before(async () => {
  up = await startMcpUpstream();
  fake = await startFakeProvider('openai');
  t = await startTestApp({ lookup: fuzzLookup, env: { TOLLGATE_PROVIDER_BASE_URL_OPENAI: fake.url, TOLLGATE_REPIN_INTERVAL_MS: '3600000' } });
  user = await t.createUser();
  const other = await t.createUser();
  const upstreamUrl = `http://mcp.fuzz.test:${up.port}/mcp`;
  const seeded = await seed({ t, pat: user.pat, upstreamUrl, providerKey: fake.providerKey });
  await seed({ t, pat: other.pat, upstreamUrl, providerKey: fake.providerKey });
  world = new World(t.app.services.db, user.userId, other.userId, { pat: user.pat, cookie: '', clientKey: seeded.clientKey });
  await world.refresh();
  routes = await loadRoutes(t);
  fp = await fingerprinter(t.app.services.db);
  client = httpClient(t.api);
});
after(async () => {
  client.close();
  await t.close();
  await up.close();
  await fake.close();
});

/** A path for the route with the user's own ids in every parameter. */
function ownPath(route: FuzzRoute, override: Record<string, string> = {}): string {
  const values: Record<string, string> = {};
  for (const p of route.params) values[p] = world.resolve('own', refKindOf(route, p, false), 0);
  return fillPath(route.pattern, { ...values, ...override });
}

function assertJsonError(r: { status: number; body: string }, status: number, message?: string | RegExp): void {
  assert.equal(r.status, status, r.body);
  const body = JSON.parse(r.body) as { error: unknown };
  assert.deepEqual(Object.keys(body), ['error']);
  assert.equal(typeof body.error, 'string');
  if (typeof message === 'string') assert.equal(body.error, message);
  else if (message) assert.match(body.error as string, message);
}

const auth = () => `Authorization: Bearer ${world.creds.pat}\r\n`;

test('a body over the 8 MiB limit is 413 Request body too large on every route that reads one, by length or chunked, and changes nothing', async () => {
  const before = await fp();
  const big = Buffer.alloc(MAX_BODY_BYTES + 1, 'a');
  const withBody = routes.filter((r) => r.body && r.auth === 'user');
  assert.ok(withBody.length >= 10);
  for (const route of withBody) {
    const r = await client.send({ method: route.method, path: ownPath(route), headers: { authorization: `Bearer ${world.creds.pat}`, 'content-type': 'application/json' }, body: big });
    assertJsonError({ status: r.status, body: r.text }, 413, 'Request body too large');
  }
  const chunked = `POST /api/mcp HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n` +
    `${(MAX_BODY_BYTES + 1).toString(16)}\r\n${'a'.repeat(MAX_BODY_BYTES + 1)}\r\n0\r\n\r\n`;
  assertJsonError(await rawExchange(t.api, chunked), 413, 'Request body too large');
  assert.deepEqual(changedTables(before, await fp()), []);
});

test('JSON nested 100,000 levels deep is refused at once with a 400, whatever it holds, and the API still answers', async () => {
  const depth = 100_000;
  const bodies = [
    '['.repeat(depth) + ']'.repeat(depth),
    '['.repeat(depth),
    '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
    '['.repeat(depth) + '"\\u0000"' + ']'.repeat(depth),
    `{"name":"deep","url":"https://public.fuzz.test/","auth":${'['.repeat(depth)}${']'.repeat(depth)}}`,
    `{"rules":[${'{"a":'.repeat(depth)}"\\u0000"${'}'.repeat(depth)}]}`,
  ];
  const before = await fp();
  for (const body of bodies) {
    for (const route of [routes.find((r) => r.name === 'POST /api/mcp')!, routes.find((r) => r.name === 'PUT /api/mcp/:id/rules')!]) {
      const started = Date.now();
      const r = await client.send({ method: route.method, path: ownPath(route), headers: { authorization: `Bearer ${world.creds.pat}`, 'content-type': 'application/json' }, body: Buffer.from(body) });
      assert.equal(r.status, 400, `${route.name} ${body.slice(0, 40)}: ${r.text.slice(0, 300)}`);
      assert.deepEqual(answerProblems(route, r), []);
      assert.ok(Date.now() - started < 2000, `${route.name} took ${Date.now() - started} ms`);
    }
  }
  assert.deepEqual(changedTables(before, await fp()), []);
  assert.equal((await t.request('GET', '/api/profile', { token: world.creds.pat })).status, 200);
});

test('a CR or LF in a header value, or both framings at once, is a 400 in JSON; nothing injected reaches the answer', async () => {
  const requests = [
    `GET /api/profile HTTP/1.1\r\nHost: x\r\n${auth()}X-Evil: a\rSet-Cookie: injected=1\r\n\r\n`,
    `GET /api/profile HTTP/1.1\r\nHost: x\r\n${auth()}X-Evil: a\r\n Set-Cookie: injected=1\r\n\r\n`, // obsolete line folding
    `GET /api/profile HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${world.creds.pat}\rX-Other: 1\r\n\r\n`,
    `POST /api/mcp HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    `POST /api/mcp HTTP/1.1\r\nHost: x\r\n${auth()}Content-Length: 2\r\nContent-Length: 30\r\n\r\n{}`,
    `GET /api/profile\u0000 HTTP/1.1\r\nHost: x\r\n\r\n`,
    `GET /api/profile HTTP/1.1\r\nHost: x\r\nX-Evil\u0000: 1\r\n\r\n`,
  ];
  for (const req of requests) {
    const r = await rawExchange(t.api, req);
    assertJsonError(r, 400);
    assert.ok(!/injected/i.test(r.wire.split('\r\n\r\n')[0]!), r.wire);
  }
  // A line feed alone ends the header line: the rest is a header of its own, which the API ignores and never echoes.
  const lf = await rawExchange(t.api, `GET /api/profile HTTP/1.1\r\nHost: x\r\n${auth()}X-Evil: a\nSet-Cookie: injected=1\r\nConnection: close\r\n\r\n`);
  assert.ok([200, 400].includes(lf.status), lf.wire);
  assert.equal(lf.headers['set-cookie'], undefined);
  // CR/LF encoded in the path or query is data, never a header.
  for (const path of ['/api/mcp/%0d%0aSet-Cookie:%20injected=1', '/api/logs?event_type=%0d%0aSet-Cookie:%20injected=1', '/api/mcp%0d%0aX-Injected:%201']) {
    const r = await client.send({ method: 'GET', path, headers: { authorization: `Bearer ${world.creds.pat}` } });
    assert.ok(r.status < 500, `${path}: ${r.status}`);
    assert.equal(r.headers['set-cookie'], undefined);
    assert.equal(r.headers['x-injected'], undefined);
  }
});

test('headers over node\'s 16 KiB limit (ten thousand of them, or one huge one) are a 431 in JSON; a thousand small ones are fine', async () => {
  const many = Array.from({ length: 10_000 }, (_, i) => `X-H${i}: v\r\n`).join('');
  assertJsonError(await rawExchange(t.api, `GET /api/profile HTTP/1.1\r\nHost: x\r\n${auth()}${many}\r\n`), 431, 'Request headers too large');
  assertJsonError(await rawExchange(t.api, `GET /api/profile HTTP/1.1\r\nHost: x\r\n${auth()}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`), 431);
  assertJsonError(await rawExchange(t.api, `GET /api/profile?${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n${auth()}\r\n`), 431);
  const fine = Array.from({ length: 1000 }, (_, i) => `X-H${i}: v\r\n`).join('');
  const r = await rawExchange(t.api, `GET /api/profile HTTP/1.1\r\nHost: x\r\n${auth()}${fine}Connection: close\r\n\r\n`);
  assert.equal(r.status, 200, r.wire.slice(0, 300));
});

/** One traversal value in one parameter: sent unless its dot segments make it a change on another route. */
async function traversal(route: FuzzRoute, param: string, value: string): Promise<'sent' | 'normalised'> {
  const path = ownPath(route, { [param]: value });
  const reached = routeOf(routes, route.method, path);
  // Dot segments are resolved as a browser resolves them before sending (`/api/mcp/<id>/resources/..` is
  // `/api/mcp/<id>`): the request is then simply a request for that other route, with the same credential.
  if (reached !== route && route.method !== 'GET') return 'normalised';
  const before = route.method === 'GET' ? undefined : await fp();
  const r = await client.send({ method: route.method, path, headers: { authorization: `Bearer ${world.creds.pat}`, 'content-type': 'application/json' }, body: route.body ? Buffer.from('{}') : undefined });
  const what = `${route.name} with ${param}=${value.slice(0, 60)}`;
  assert.deepEqual(answerProblems(reached, r), [], `${what}: ${r.status} ${r.text.slice(0, 300)}`);
  if (reached === route) assert.ok(r.status >= 400 && r.status < 500, `${what}: ${r.status} ${r.text.slice(0, 300)}`);
  if (before) assert.deepEqual(changedTables(before, await fp()), [], what);
  return 'sent';
}

test('traversal strings in every path parameter of every route: a literal segment names nothing (4xx), nothing changes, no 5xx', async () => {
  const outcomes = { sent: 0, normalised: 0 };
  for (const route of routes.filter((r) => r.params.length)) {
    for (const param of route.params) {
      for (const value of TRAVERSALS) outcomes[await traversal(route, param, value)]++;
    }
  }
  assert.ok(outcomes.sent > 1000, `${outcomes.sent} requests sent, ${outcomes.normalised} resolved to another route by their dot segments`);
});
