// Every MCP message is classified or refused (issue 20 item 3): through a real gateway in front of an upstream that
// records the bytes it receives, with a key granted only the tool `echo`. Each refusal is a JSON-RPC error and the
// upstream receives nothing of the refused POST; what it does receive is the checked message re-serialised.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordingProxyForFile, type Recorded } from '@tollgate/testkit/recording-mcp-upstream.ts';
import { flushedEvents, rawPost } from '@tollgate/testkit/mcp-kit.ts';

const f = recordingProxyForFile(['echo']);

/** A POST through the gateway (a string is sent as raw text), with the POSTs the upstream received for it. */
async function post(body: unknown): Promise<Awaited<ReturnType<typeof rawPost>> & { forwarded: Recorded[] }> {
  const n = f.up.posts().length;
  const r = await rawPost(f.p.pathUrl, body, { authorization: `Bearer ${f.key}` });
  return { ...r, forwarded: f.up.posts().slice(n) };
}

const err = (id: unknown, code: number, message: string) => ({ jsonrpc: '2.0', id, error: { code, message } });
const NOT_PERMITTED = 'Tool "secret" is not permitted for this credential';
const BATCH_REJECTED = 'Batch rejected: another message in it was refused';

test('a tools/call notification for a tool the key may not use is refused (403, JSON-RPC error without id) and never reaches the upstream', async () => {
  const ran = f.up.ran.length;
  const alone = await post({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'secret', arguments: {} } });
  assert.equal(alone.status, 403, alone.text);
  assert.deepEqual(alone.json, err(null, -32001, NOT_PERMITTED));
  assert.deepEqual(alone.forwarded, []);

  // Beside a request, the whole batch is refused: the request gets -32004, the notification its reason without id.
  const batch = await post([
    { jsonrpc: '2.0', method: 'tools/call', params: { name: 'secret' } },
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } },
  ]);
  assert.equal(batch.status, 200, batch.text);
  assert.deepEqual(batch.json, [err(null, -32001, NOT_PERMITTED), err(1, -32004, BATCH_REJECTED)]);
  assert.deepEqual(batch.forwarded, []);
  assert.equal(f.up.ran.length, ran, 'the upstream ran nothing');

  // A notification for a permitted tool is the key's own business: it is forwarded.
  const allowed = { jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo', arguments: { text: 'n' } } };
  const ok = await post(allowed);
  assert.equal(ok.status, 202, ok.text);
  assert.deepEqual(ok.forwarded.map((f) => f.body), [JSON.stringify(allowed)]);

  const ev = await flushedEvents(f.t, f.p.id);
  const denies = ev.filter((e) => e.event_type === 'deny' && e.tool === 'secret');
  assert.equal(denies.length, 2);
  assert.ok(denies.every((e) => e.details.reason === 'tool_not_permitted' && e.details.method === 'tools/call'));
});

test('two requests with one id in a batch are refused with -32600 (answers are matched by id): a tools/list sharing its id with a ping brings back no catalog', async () => {
  const same = await post([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 1, method: 'ping' }]);
  assert.equal(same.status, 400, same.text);
  const repeated = 'Invalid Request: another message of this batch has the same id';
  assert.deepEqual(same.json, [err(1, -32600, repeated), err(1, -32600, repeated)]);
  assert.deepEqual(same.forwarded, []);
  assert.ok(!same.text.includes('secret'), 'no unfiltered catalog');

  // 1 and "1" are different ids: both go, and the list is filtered.
  const distinct = await post([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: '1', method: 'ping' }]);
  assert.equal(distinct.status, 200, distinct.text);
  assert.equal(distinct.forwarded.length, 1);
  const list = (distinct.json as Array<{ id: unknown; result: { tools?: Array<{ name: string }> } }>).find((m) => m.id === 1)!;
  assert.deepEqual(list.result.tools!.map((x) => x.name), ['echo']);

  // Two replies with one id answer one server request twice; a request and a reply may share an id.
  const replies = await post([{ jsonrpc: '2.0', id: 5, result: {} }, { jsonrpc: '2.0', id: 5, result: {} }]);
  assert.equal(replies.status, 400, replies.text);
  assert.deepEqual(replies.json, [err(null, -32600, repeated), err(null, -32600, repeated)]);
  assert.deepEqual(replies.forwarded, []);
  const mixed = await post([{ jsonrpc: '2.0', id: 5, method: 'ping' }, { jsonrpc: '2.0', id: 5, result: {} }]);
  assert.equal(mixed.status, 200, mixed.text);
  assert.equal(mixed.forwarded.length, 1);

  const ev = await flushedEvents(f.t, f.p.id);
  assert.ok(ev.some((e) => e.event_type === 'deny' && e.details.reason === 'repeated_id' && e.details.messages === 2));
});

test('a tools/call or resources/* whose name or uri is not a string is -32602 Invalid params, never a 500 and never forwarded', async () => {
  const ran = f.up.ran.length;
  const cases: Array<[unknown, string]> = [
    [{ name: { a: 1 } }, 'tools/call'],
    [{ name: ['echo'] }, 'tools/call'],
    [{ arguments: {} }, 'tools/call'],
    [undefined, 'tools/call'],
    [{ uri: ['upstream://readme'] }, 'resources/read'],
    [{ uri: 7 }, 'resources/subscribe'],
    [{}, 'resources/unsubscribe'],
  ];
  for (const [params, method] of cases) {
    const r = await post({ jsonrpc: '2.0', id: 3, method, ...(params === undefined ? {} : { params }) });
    const member = method === 'tools/call' ? 'name' : 'uri';
    assert.equal(r.status, 200, `${method} ${JSON.stringify(params)}: ${r.text}`);
    assert.deepEqual(r.json, err(3, -32602, `Invalid params: ${method} needs params.${member} as a string`));
    assert.deepEqual(r.forwarded, [], `${method} ${JSON.stringify(params)} reached the upstream`);
  }
  // As a notification there is no id to answer: 400 with the error without id.
  const n = await post({ jsonrpc: '2.0', method: 'tools/call', params: { name: 5 } });
  assert.equal(n.status, 400, n.text);
  assert.deepEqual(n.json, err(null, -32602, 'Invalid params: tools/call needs params.name as a string'));
  assert.deepEqual(n.forwarded, []);
  assert.equal(f.up.ran.length, ran, 'the upstream ran nothing');
});

test('messages of no known shape get 400 -32600 Invalid Request with id null, and the upstream receives nothing', async () => {
  const shape = 'Invalid Request: not a JSON-RPC 2.0 request, notification or response';
  const badId = 'Invalid Request: id must be a string or a finite number';
  const cases: Array<[string, unknown, string]> = [
    ['id null', { jsonrpc: '2.0', id: null, method: 'tools/call', params: { name: 'secret' } }, badId],
    ['id boolean', { jsonrpc: '2.0', id: true, method: 'ping' }, badId],
    ['id object', { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }, badId],
    ['id array', { jsonrpc: '2.0', id: [1], method: 'ping' }, badId],
    ['id out of range', '{"jsonrpc":"2.0","id":1e999,"method":"ping"}', badId],
    ['reply with id null', { jsonrpc: '2.0', id: null, result: {} }, badId],
    ['no jsonrpc', { id: 1, method: 'ping' }, shape],
    ['jsonrpc 1.0', { jsonrpc: '1.0', id: 1, method: 'ping' }, shape],
    ['method not a string', { jsonrpc: '2.0', id: 1, method: 5 }, shape],
    ['method and result', { jsonrpc: '2.0', id: 1, method: 'ping', result: {} }, shape],
    ['params a string', { jsonrpc: '2.0', id: 1, method: 'ping', params: 'x' }, shape],
    ['params an array', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: ['echo'] }, shape],
    ['reply without result or error', { jsonrpc: '2.0', id: 1 }, shape],
    ['reply with result and error', { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } }, shape],
    ['error not an error object', { jsonrpc: '2.0', id: 1, error: 'no' }, shape],
    ['reply without id', { jsonrpc: '2.0', result: {} }, shape],
  ];
  for (const [what, body, message] of cases) {
    const r = await post(body);
    assert.equal(r.status, 400, `${what}: ${r.text}`);
    assert.deepEqual(r.json, err(null, -32600, message), what);
    assert.deepEqual(r.forwarded, [], `${what} reached the upstream`);
  }
  // In a batch, the whole batch is refused; its requests get -32004.
  const batch = await post([{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: false, method: 'ping' }]);
  assert.equal(batch.status, 400, batch.text);
  assert.deepEqual(batch.json, [err(1, -32004, BATCH_REJECTED), err(null, -32600, badId)]);
  assert.deepEqual(batch.forwarded, []);
  const ev = await flushedEvents(f.t, f.p.id);
  assert.ok(ev.some((e) => e.event_type === 'deny' && e.details.reason === 'invalid_request'));
});

test('the upstream receives the checked message re-serialised: a key written twice reaches it once, with the value the policy read', async () => {
  // JSON.parse keeps the last of two keys; an upstream parser keeping the first would have run `secret`.
  const ran = f.up.ran.length;
  const r = await post('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"secret","name":"echo","arguments":{"text":"hi"}}}');
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.forwarded.map((f) => f.body), ['{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}']);
  assert.deepEqual(f.up.ran.slice(ran), ['echo']);

  // The other order is checked as `secret`, and refused.
  const refused = await post('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","name":"secret"}}');
  assert.deepEqual(refused.json, err(2, -32001, NOT_PERMITTED));
  assert.deepEqual(refused.forwarded, []);

  // Top-level members and whitespace too: the upstream reads the id and method the gateway matched answers with.
  const spaced = await post('{ "jsonrpc" : "2.0", "id" : "a", "method" : "tools/call", "method" : "ping", "id" : 7 }');
  assert.equal(spaced.status, 200, spaced.text);
  assert.deepEqual(spaced.forwarded.map((f) => f.body), ['{"jsonrpc":"2.0","id":7,"method":"ping"}']);
  assert.equal(spaced.json.id, 7);
  assert.deepEqual(f.up.ran.slice(ran), ['echo'], 'no tools/call ran');
});

test('client replies to server requests, notifications, _meta and progress tokens pass as they were sent', async () => {
  const messages = [
    { jsonrpc: '2.0', id: 'srv-1', result: { _meta: { 'io.example/trace': 'x' }, role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' } },
    { jsonrpc: '2.0', id: 0, error: { code: -1, message: 'User declined', data: { why: 'no' } } },
    { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 1, total: 2, _meta: {} } },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4, reason: 'user' } },
  ];
  for (const m of messages) {
    const r = await post(m);
    assert.equal(r.status, 202, `${JSON.stringify(m)}: ${r.text}`);
    assert.deepEqual(r.forwarded.map((f) => f.body), [JSON.stringify(m)]);
  }
  const call = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo', arguments: { text: 'm' }, _meta: { progressToken: 9 } } };
  const r = await post(call);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.forwarded.map((f) => f.body), [JSON.stringify(call)]);
  // A batch of replies and notifications goes as one batch.
  const batch = await post(messages);
  assert.equal(batch.status, 202, batch.text);
  assert.deepEqual(batch.forwarded.map((f) => f.body), [JSON.stringify(messages)]);
});
