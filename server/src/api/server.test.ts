import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startTestApp, type TestApp } from '@tollgate/testkit/harness.ts';

let t: TestApp;
before(async () => { t = await startTestApp(); });
after(async () => { await t.close(); });

test('unknown path returns 404 Endpoint not found', async () => {
  const r = await t.request('GET', '/api/nope');
  assert.equal(r.status, 404);
  assert.deepEqual(r.body, { error: 'Endpoint not found' });
});

test('health without a credential returns 401 Not authenticated', async () => {
  const r = await t.request('GET', '/api/health');
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, { error: 'Not authenticated' });
});

test('health with a PAT reports datastores and gateway up', async () => {
  const u = await t.createUser();
  const r = await t.request('GET', '/api/health', { token: u.pat });
  assert.equal(r.status, 200);
  assert.equal(r.body.overall, 'operational');
  assert.deepEqual(r.body.services.map((s: { name: string }) => s.name).sort(), ['database', 'gateway', t.app.services.state.kind === 'redis' ? 'redis' : 'state'].sort());
});

test('an unknown bearer token returns 401 Invalid personal access token', async () => {
  const r = await t.request('GET', '/api/health', { token: 'svc_pat_nope' });
  assert.equal(r.status, 401);
  assert.deepEqual(r.body, { error: 'Invalid personal access token' });
});

test('the OpenAPI document is served without a credential and lists the API', async () => {
  const r = await t.request('GET', '/api/openapi.json');
  assert.equal(r.status, 200);
  assert.equal(r.body.openapi, '3.1.0');
  assert.ok(r.body.paths['/api/health'].get);
  assert.ok(r.body.components.schemas.Rule.oneOf || r.body.components.schemas.Rule.anyOf);
});


/** Raw bytes in, everything the server sent before closing out. */
function exchange(bytes: string): Promise<string> {
  const { port } = new URL(t.api);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(bytes));
    let wire = '';
    socket.on('data', (c: Buffer) => { wire += c.toString('latin1'); });
    socket.on('close', () => resolve(wire));
    socket.on('error', reject);
  });
}

test('a request node\'s parser refuses still gets a JSON {error}: 400 for a CR in a header or both framings, 431 for huge headers', async () => {
  const cases: Array<[string, string]> = [
    ['GET /api/health HTTP/1.1\r\nHost: x\r\nX-Evil: a\rb\r\n\r\n', 'HTTP/1.1 400 Bad Request'],
    ['POST /api/mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 'HTTP/1.1 400 Bad Request'],
    [`GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 'HTTP/1.1 431 Request Header Fields Too Large'],
  ];
  for (const [req, statusLine] of cases) {
    const wire = await exchange(req);
    const [head, body] = wire.split('\r\n\r\n');
    assert.equal(head!.split('\r\n')[0], statusLine);
    assert.match(head!, /\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
    assert.deepEqual(Object.keys(JSON.parse(body!)), ['error']);
  }
  assert.equal((await t.request('GET', '/api/nope')).status, 404, 'the server still answers');
});
