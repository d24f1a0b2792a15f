// The MCP gateway carries Streamable HTTP transparently (docs/gateway.md "Transport"): the official SDK client
// talks to a real SDK server through it, on both routes, with JSON and SSE answers, streaming, sessions, GET
// streams with resumption, DELETE, batches, the response cap and the upstream failures.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { freePort } from '@tollgate/testkit/free-port.ts';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { connect, createKey, createProxy, flushedEvents, INIT, rawPost, rawSession, sseMessages, type ProxyUnderTest } from '@tollgate/testkit/mcp-kit.ts';

let t: TestApp;
let sse: McpUpstream;
let json: McpUpstream;
let user: TestUser;
let p: ProxyUnderTest;
let key: string;

before(async () => {
  t = await startTestApp();
  sse = await startMcpUpstream();
  json = await startMcpUpstream({ json: true });
  user = await t.createUser();
  p = await createProxy(t, user, sse.url);
  key = await createKey(t, p, ['*'], ['*']);
});
after(async () => {
  await sse.close();
  await json.close();
  await t.close();
});

for (const via of ['path', 'host'] as const) {
  test(`the SDK client lists and calls tools and reads resources through the ${via} route`, async () => {
    const c = await connect(t, p, { token: key, via });
    try {
      const tools = await c.client.listTools();
      assert.deepEqual(tools.tools.map((x) => x.name).sort(), ['add', 'ask', 'big', 'counter', 'echo', 'headers', 'secret', 'slow']);
      const add = tools.tools.find((x) => x.name === 'add')!;
      assert.equal(add.inputSchema.type, 'object');
      assert.ok(add.inputSchema.properties && 'a' in add.inputSchema.properties, 'schemas pass verbatim');
      const r = await c.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      assert.deepEqual(r.content, [{ type: 'text', text: '5' }]);
      const res = await c.client.readResource({ uri: 'upstream://readme' });
      assert.equal((res.contents[0] as { text: string }).text, 'upstream readme');
      assert.ok(c.transport.sessionId, 'the upstream session id reached the client');
    } finally {
      await c.close();
    }
  });
}

test('an upstream answering JSON (enableJsonResponse) works the same', async () => {
  const pj = await createProxy(t, user, json.url);
  const k = await createKey(t, pj);
  const c = await connect(t, pj, { token: k });
  try {
    const r = await c.client.callTool({ name: 'echo', arguments: { text: 'json mode' } });
    assert.deepEqual(r.content, [{ type: 'text', text: 'json mode' }]);
  } finally {
    await c.close();
  }
});

test('progress and log notifications stream through as they happen, not at the end', async () => {
  const c = await connect(t, p, { token: key });
  try {
    const seen: number[] = [];
    const logs: string[] = [];
    c.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(String(n.params.data)); });
    const started = Date.now();
    const r = await c.client.callTool({ name: 'slow', arguments: { steps: 3, delayMs: 150 } }, undefined, {
      onprogress: () => { seen.push(Date.now() - started); },
    });
    const total = Date.now() - started;
    assert.equal(seen.length, 3);
    assert.ok(seen[0]! < total - 200, `first progress at ${seen[0]} ms arrived well before the answer at ${total} ms`);
    assert.deepEqual(logs, ['step 1', 'step 2', 'step 3']);
    assert.match((r.content as Array<{ text: string }>)[0]!.text, /^done at/);
  } finally {
    await c.close();
  }
});

test('a server-to-client request (sampling) during a call reaches the client, and its reply reaches the same session', async () => {
  const c = await connect(t, p, { token: key, via: 'host', capabilities: { sampling: {} } });
  try {
    let asked = '';
    c.client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      asked = JSON.stringify(req.params.messages[0]!.content);
      return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'forty-two' } };
    });
    const r = await c.client.callTool({ name: 'ask', arguments: { question: 'the answer?' } });
    assert.deepEqual(JSON.parse(asked), { type: 'text', text: 'the answer?' });
    assert.deepEqual(r.content, [{ type: 'text', text: 'client said: forty-two' }]);
  } finally {
    await c.close();
  }
});

test('session headers pass both ways; an unknown session gets the upstream 404; DELETE ends the session', async () => {
  const sid = await rawSession(p.pathUrl, key);
  const h = { authorization: `Bearer ${key}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
  const list = await rawPost(p.pathUrl, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, h);
  assert.equal(list.status, 200);
  const sent = sse.requests.at(-1)!.headers;
  assert.equal(sent['mcp-session-id'], sid);
  assert.equal(sent['mcp-protocol-version'], '2025-06-18');
  assert.equal(sent.authorization, undefined, 'the client key never reaches the upstream');
  const bad = await rawPost(p.pathUrl, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { ...h, 'mcp-session-id': 'no-such-session' });
  assert.equal(bad.status, 404);
  const del = await fetch(p.pathUrl, { method: 'DELETE', headers: h });
  assert.equal(del.status, 200);
  assert.equal(sse.requests.at(-1)!.method, 'DELETE');
  const after = await rawPost(p.pathUrl, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, h);
  assert.equal(after.status, 404, 'the session is gone upstream');
});

test('GET opens the server stream; Last-Event-ID is forwarded for resumption', async () => {
  const sid = await rawSession(p.pathUrl, key);
  const h = { authorization: `Bearer ${key}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
  const g = { ...h, accept: 'text/event-stream' };
  const ac = new AbortController();
  const r = await fetch(p.pathUrl, { headers: g, signal: ac.signal });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /text\/event-stream/);
  ac.abort();
  await r.body?.cancel().catch(() => undefined);
  // A POST whose stream carries event ids (the upstream has an event store), then a GET resuming after the first.
  const post = await rawPost(p.pathUrl, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow', arguments: { steps: 2, delayMs: 10 } } }, h);
  const ids = post.text.split('\n').filter((l) => l.startsWith('id:')).map((l) => l.slice(3).trim());
  assert.ok(ids.length >= 2, `event ids pass through: ${post.text}`);
  const ac2 = new AbortController();
  const resumed = await fetch(p.pathUrl, { headers: { ...g, 'last-event-id': ids[0]! }, signal: ac2.signal });
  assert.equal(sse.requests.at(-1)!.headers['last-event-id'], ids[0]);
  assert.equal(resumed.status, 200);
  const reader = resumed.body!.getReader();
  let text = '';
  // A deadline, not a wait: the read gives up after 3 s if the replay never comes (the stream itself stays open).
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<{ done: true; value: undefined }>((r) => { timer = setTimeout(() => r({ done: true, value: undefined }), 3000); });
  try {
    while (!text.includes('"id":7')) {
      const chunk = await Promise.race([reader.read(), deadline]);
      if (chunk.done) break;
      text += Buffer.from(chunk.value).toString();
    }
  } finally {
    clearTimeout(timer);
  }
  ac2.abort();
  assert.match(text, /"id":7/, 'the replayed events after Last-Event-ID reach the client');
});

test('a JSON-RPC batch is forwarded and answered', async () => {
  const sid = await rawSession(p.pathUrl, key);
  const h = { authorization: `Bearer ${key}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-03-26' };
  const r = await rawPost(p.pathUrl, [
    { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } },
    { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'echo', arguments: { text: 'b' } } },
  ], h);
  assert.equal(r.status, 200, r.text);
  const msgs = r.json ?? sseMessages(r.text);
  const byId = new Map<number, any>((Array.isArray(msgs) ? msgs : [msgs]).map((m: { id: number }) => [m.id, m])); // eslint-disable-line @typescript-eslint/no-explicit-any
  assert.equal(byId.get(10)!.result.content[0].text, 'a');
  assert.equal(byId.get(11)!.result.content[0].text, 'b');
});

test('the upstream bearer token is injected and the client Authorization, Cookie and Origin are not forwarded', async () => {
  const upT = await startMcpUpstream({ token: 'upstream-secret-1' });
  try {
    const pt = await createProxy(t, user, upT.url, { authType: 'bearer', authToken: 'upstream-secret-1' });
    const k = await createKey(t, pt);
    const c = await connect(t, pt, { token: k, headers: { cookie: 'session=abc' } });
    try {
      const r = await c.client.callTool({ name: 'headers', arguments: {} });
      const seen = JSON.parse((r.content as Array<{ text: string }>)[0]!.text);
      assert.deepEqual(seen, { authorization: 'Bearer upstream-secret-1', origin: null, cookie: null });
    } finally {
      await c.close();
    }
  } finally {
    await upT.close();
  }
});

test('a request from a foreign Origin is refused (DNS rebinding); a same-origin one passes', async () => {
  const r = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${key}`, origin: 'http://evil.example' });
  assert.equal(r.status, 403);
  assert.deepEqual(r.json, { error: 'Origin not allowed' });
  const same = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${key}`, origin: new URL(t.gateway).origin });
  assert.equal(same.status, 200);
});

test('responses over the owner cap become JSON-RPC "Response too large" (SSE and JSON), smaller ones pass', async () => {
  const u = await t.createUser();
  // Cap this owner at 64 KB.
  const { setConsumerTags } = await import('../../identity/users.ts');
  const v = await t.app.services.db.tx((q) => setConsumerTags(q, u.consumerId, ['private:permissions:user', 'private:permissions:mcp:max_resp_body_kb:64']));
  await t.app.services.configChanged(v);
  for (const upstream of [sse, json]) {
    const pc = await createProxy(t, u, upstream.url);
    const k = await createKey(t, pc);
    const c = await connect(t, pc, { token: k });
    try {
      const ok = await c.client.callTool({ name: 'big', arguments: { kb: 32 } });
      assert.equal((ok.content as Array<{ text: string }>)[0]!.text.length, 32 * 1024);
      await assert.rejects(c.client.callTool({ name: 'big', arguments: { kb: 200 } }), (err: { code?: number; message: string }) => {
        assert.equal(err.code, -32000);
        assert.match(err.message, /Response too large/);
        return true;
      });
      if (upstream === sse) {
        // A notification over the cap cannot be answered with an error: a short log message stands in for it.
        const logs: unknown[] = [];
        c.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params); });
        const r = await c.client.callTool({ name: 'big', arguments: { kb: 1, logKb: 100 } });
        assert.equal((r.content as Array<{ text: string }>)[0]!.text.length, 1024);
        assert.deepEqual(logs, [{ level: 'error', logger: 'tollgate', data: 'Response too large: a notifications/message message from the upstream was over the 64 KB response cap and was withheld' }]);
      }
      // The session still works after the refused answer.
      const again = await c.client.callTool({ name: 'echo', arguments: { text: 'still here' } });
      assert.deepEqual(again.content, [{ type: 'text', text: 'still here' }]);
    } finally {
      await c.close();
    }
    const ev = await flushedEvents(t, pc.id);
    // One outcome per request: a JSON answer's is the error; a stream's is the allow at its start, plus a detail.
    assert.ok(ev.some((e) => e.event_type === (upstream === sse ? 'stream_error' : 'error') && e.details.reason === 'response_too_large'));
  }
});

test('an unreachable upstream gives 502 with an error event; other methods get 405', async () => {
  const port = await freePort();
  const r = await t.request('POST', '/api/mcp', { token: user.pat, body: { name: 'down', url: `http://127.0.0.1:${port}/mcp` } });
  assert.equal(r.status, 201, r.text);
  const id = r.body.server.id as string;
  const k = await createKey(t, { id, user, pathUrl: '', hostUrl: '' });
  const res = await rawPost(`${t.gateway}/${id}/`, INIT, { authorization: `Bearer ${k}` });
  assert.equal(res.status, 502);
  assert.deepEqual(res.json, { error: 'Upstream MCP server unreachable' });
  const ev = await flushedEvents(t, id);
  assert.equal(ev.at(-1)!.event_type, 'error');
  assert.equal(ev.at(-1)!.details.reason, 'upstream_unreachable');
  const put = await fetch(`${t.gateway}/${id}/`, { method: 'PUT', headers: { authorization: `Bearer ${k}` } });
  assert.equal(put.status, 405);
});

test('malformed bodies get JSON-RPC parse / invalid-request errors without reaching the upstream', async () => {
  const before = sse.requests.length;
  const bad = await rawPost(p.pathUrl, '{not json', { authorization: `Bearer ${key}` });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.error.code, -32700);
  const inv = await rawPost(p.pathUrl, [], { authorization: `Bearer ${key}` });
  assert.equal(inv.status, 400);
  assert.equal(inv.json.error.code, -32600);
  assert.equal(sse.requests.length, before);
});

test('a POST body over 4 MB gets 413; an upstream without a DNS pin is never contacted (502)', async () => {
  const big = await rawPost(p.pathUrl, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(4 * 1024 * 1024) } }), { authorization: `Bearer ${key}` });
  assert.equal(big.status, 413);
  assert.deepEqual(big.json, { error: 'Request body too large' });
  const unpinned = await createProxy(t, user, sse.url);
  const k = await createKey(t, unpinned);
  const { bumpConfigVersion } = await import('../../snapshot/changes.ts');
  await t.app.services.db.query('UPDATE mcp_servers SET pin = NULL WHERE id = $1', [unpinned.id]);
  await t.app.services.configChanged(await bumpConfigVersion(t.app.services.db));
  const before = sse.requests.length;
  const r = await rawPost(unpinned.pathUrl, INIT, { authorization: `Bearer ${k}` });
  assert.equal(r.status, 502);
  assert.match(r.json.error, /not resolved/);
  assert.equal(sse.requests.length, before);
});

test('an unknown proxy id gets 404', async () => {
  const r = await rawPost(`${t.gateway}/00000000-0000-4000-8000-000000000000/`, INIT);
  assert.equal(r.status, 404);
});

test('an upstream that does not start its answer in TOLLGATE_MCP_UPSTREAM_TIMEOUT_MS gives 504 with an error event', async () => {
  // Accepts connections and reads requests but never answers.
  const held: import('node:net').Socket[] = [];
  const silent = createServer((sock) => { held.push(sock); sock.resume(); });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const quick = await startTestApp({ env: { TOLLGATE_MCP_UPSTREAM_TIMEOUT_MS: '300' } });
  try {
    const owner = await quick.createUser();
    const r = await quick.request('POST', '/api/mcp', { token: owner.pat, body: { name: 'slow', url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp` } });
    assert.equal(r.status, 201, r.text);
    const id = r.body.server.id as string;
    const k = await createKey(quick, { id, user: owner, pathUrl: '', hostUrl: '' });
    const started = Date.now();
    const res = await rawPost(`${quick.gateway}/${id}/`, INIT, { authorization: `Bearer ${k}` });
    assert.equal(res.status, 504);
    assert.deepEqual(res.json, { error: 'Upstream MCP server timed out' });
    assert.ok(Date.now() - started < 5000, 'the configured limit applies, not the 5-minute default');
    const ev = await flushedEvents(quick, id);
    assert.equal(ev.at(-1)!.event_type, 'error');
    assert.equal(ev.at(-1)!.details.reason, 'upstream_timeout');
  } finally {
    await quick.close();
    for (const s of held) s.destroy();
    await new Promise((r) => silent.close(r));
  }
});

test('a 200 answer labelled text/plain (or not at all) still gets the tools/list filter; a non-JSON one passes as it came', async () => {
  const { createServer: createHttpServer } = await import('node:http');
  const tools = [{ name: 'echo', inputSchema: { type: 'object' } }, { name: 'secret', inputSchema: { type: 'object' } }];
  const odd = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c; });
    req.on('end', () => {
      const msg = JSON.parse(body) as { id: number; method: string };
      if (msg.method === 'ping') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('pong, not JSON');
      const result = msg.method === 'tools/list' ? { tools } : { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'odd', version: '1' } };
      const text = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
      // tools/list comes back with no content type at all, initialize as text/plain.
      res.writeHead(200, msg.method === 'tools/list' ? {} : { 'content-type': 'text/plain' }).end(text);
    });
  });
  await new Promise<void>((r) => odd.listen(0, '127.0.0.1', r));
  try {
    // Created without tool discovery (the SDK client refuses such an upstream).
    const r = await t.request('POST', '/api/mcp', { token: user.pat, body: { name: 'odd', url: `http://127.0.0.1:${(odd.address() as AddressInfo).port}/mcp` } });
    assert.equal(r.status, 201, r.text);
    const id = r.body.server.id as string;
    await t.app.services.db.query('UPDATE mcp_servers SET tools = $1::jsonb WHERE id = $2', [JSON.stringify(tools), id]);
    const k = await createKey(t, { id, user, pathUrl: '', hostUrl: '' }, ['echo']);
    const auth = { authorization: `Bearer ${k}` };
    const url = `${t.gateway}/${id}/`;
    const list = await rawPost(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, auth);
    assert.equal(list.status, 200);
    assert.deepEqual(list.json.result.tools.map((x: { name: string }) => x.name), ['echo'], 'the tool the key may not call is not listed');
    const ping = await rawPost(url, { jsonrpc: '2.0', id: 3, method: 'ping' }, auth);
    assert.deepEqual([ping.status, ping.headers.get('content-type'), ping.text], [200, 'text/plain', 'pong, not JSON']);
  } finally {
    await new Promise((r) => odd.close(r));
  }
});

test('an SSE answer whose first event arrives in parts: the client has the headers before the rest, then the whole event', async () => {
  // The gateway sends a stream's headers with its first event when that event is already there; when only part of
  // it is, they must still go out at once, not wait for the rest.
  const { createServer: createHttpServer } = await import('node:http');
  let release!: () => void;
  const released = new Promise<void>((r) => { release = r; });
  const halves = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\ndata: {"jsonrpc":"2.0",');
      void released.then(() => res.end('"id":4,"result":{}}\n\n'));
    });
  });
  await new Promise<void>((r) => halves.listen(0, '127.0.0.1', r));
  try {
    const r = await t.request('POST', '/api/mcp', { token: user.pat, body: { name: 'halves', url: `http://127.0.0.1:${(halves.address() as AddressInfo).port}/mcp` } });
    assert.equal(r.status, 201, r.text);
    const id = r.body.server.id as string;
    const k = await createKey(t, { id, user, pathUrl: '', hostUrl: '' });
    const res = await fetch(`${t.gateway}/${id}/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' }),
    });
    // fetch resolves on the headers: had the gateway held them for the rest of the event, this would wait for ever.
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    release();
    assert.equal(await res.text(), 'event: message\ndata: {"jsonrpc":"2.0","id":4,"result":{}}\n\n');
  } finally {
    release();
    await new Promise((r) => halves.close(r));
  }
});

test('without a max_resp_body_kb tag the response cap is 512 KB', async () => {
  const c = await connect(t, p, { token: key });
  try {
    const ok = await c.client.callTool({ name: 'big', arguments: { kb: 500 } });
    assert.equal((ok.content as Array<{ text: string }>)[0]!.text.length, 500 * 1024);
    await assert.rejects(c.client.callTool({ name: 'big', arguments: { kb: 513 } }), /Response too large/);
  } finally {
    await c.close();
  }
});
