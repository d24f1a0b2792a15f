// The client's path is appended under the configured MCP path (issue 20 item 3): no spelling of a parent segment
// reaches the upstream, by the path route or the host route, on POST, GET or DELETE. Requests are sent with
// node:http, which sends the path as written (fetch would resolve dot segments first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { recordingProxyForFile } from '@tollgate/testkit/recording-mcp-upstream.ts';
import { flushedEvents, INIT } from '@tollgate/testkit/mcp-kit.ts';
import { forwardablePath } from './upstream.ts';

const f = recordingProxyForFile();

/** A request with its path exactly as written. */
function send(method: string, path: string, host?: string): Promise<{ status: number; json: unknown }> {
  const gw = new URL(f.t.gateway);
  const body = method === 'POST' ? JSON.stringify(INIT) : undefined;
  return new Promise((resolve, reject) => {
    const req = request({
      host: gw.hostname, port: gw.port, method, path,
      headers: { authorization: `Bearer ${f.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(host ? { host } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try { json = JSON.parse(text); } catch { json = text; }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const TRAVERSALS = [
  '/..', '/../x', '/a/../../x', '/./x', '/.', '/..;/x', '/a/..;jsessionid=1/x',
  '/%2e%2e/x', '/%2E%2e/x', '/.%2e/x', '/%2e/x', '/a%2f..%2f..%2fx', '/a%2Fb', '/a%5c..%5cx', '/a\\..\\x',
  '//x', '/a//x', '/%252e%252e/x', '/%c0%ae%c0%ae/x', '/%e0%80%ae/x', '/%zz', '/%', '/a#/../x',
];
const REJECTED = { error: 'Path not allowed: dot segments, empty segments, backslashes and encoded dots, slashes, backslashes or percent signs are not forwarded' };

test('a path that could name something above the configured MCP path is refused with 400 and never reaches the upstream', async () => {
  const before = f.up.received.length;
  const hostRoute = `${f.p.id}.${f.t.config.proxyDomain}`;
  for (const path of TRAVERSALS) {
    for (const [method, url, host] of [['POST', `/${f.p.id}${path}`], ['GET', `/${f.p.id}${path}`], ['DELETE', `/${f.p.id}${path}`], ['POST', path, hostRoute]] as const) {
      const r = await send(method, url, host);
      assert.equal(r.status, 400, `${method} ${host ?? ''}${url}: ${JSON.stringify(r.json)}`);
      assert.deepEqual(r.json, REJECTED, `${method} ${host ?? ''}${url}`);
    }
  }
  assert.deepEqual(f.up.received.slice(before), [], 'the upstream received none of them');
  const ev = await flushedEvents(f.t, f.p.id);
  assert.ok(ev.some((e) => e.event_type === 'deny' && e.details.reason === 'path_rejected'));
});

test('other paths and queries are appended under the configured MCP path', async () => {
  const cases: Array<[string, string]> = [
    [`/${f.p.id}/`, '/base/mcp'],
    [`/${f.p.id}`, '/base/mcp'],
    [`/${f.p.id}/?a=1`, '/base/mcp?a=1'],
    [`/${f.p.id}/sub/path?x=../y`, '/base/mcp/sub/path?x=../y'],
    [`/${f.p.id}/a.b/..c/.d/%20x`, '/base/mcp/a.b/..c/.d/%20x'],
  ];
  for (const [path, expected] of cases) {
    const before = f.up.received.length;
    const r = await send('POST', path);
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.json)}`);
    assert.deepEqual(f.up.received.slice(before).map((x) => x.path), [expected], path);
  }
});

test('forwardablePath: every spelling of a parent is refused, names with dots are not', () => {
  for (const path of TRAVERSALS) assert.equal(forwardablePath(path), false, path);
  for (const path of ['/', '/x', '/a.b', '/..a', '/a..', '/...', '/a/b/', '/%20', '/caf%C3%A9']) assert.equal(forwardablePath(path), true, path);
  assert.equal(forwardablePath('http://evil.example/x'), false, 'an absolute-form target');
  assert.equal(forwardablePath('*'), false);
});
