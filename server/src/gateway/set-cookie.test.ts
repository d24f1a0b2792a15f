// No gateway answer sets a cookie (upstream/headers.ts COOKIE_SETTING_HEADERS): a proxy's host is a sibling of the
// dashboard's, so a cookie set there could reach the management API or shadow its session cookie. An MCP upstream
// (JSON and SSE answers) and an LLM provider (JSON and stream) answering with Set-Cookie and Set-Cookie2, and lambdas
// that put one in svc.response.exit, reach the client without it; their other headers still pass.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createKey, createProxy, INIT, putRules, rawPost, rawSession } from '@tollgate/testkit/mcp-kit.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { createLlmKey, createLlmProxy, putLlmRules, rawLlm, startLlmEnv, type LlmEnv } from '@tollgate/testkit/llm-kit.ts';

const COOKIES = { 'set-cookie': ['planted=1; Domain=example.test; Path=/api', 'tollgate_session=planted; Path=/'], 'set-cookie2': 'old=1' };

function assertNoCookie(headers: Headers, what: string): void {
  assert.deepEqual(headers.getSetCookie(), [], `${what}: Set-Cookie reached the client`);
  assert.equal(headers.get('set-cookie2'), null, `${what}: Set-Cookie2 reached the client`);
}

let e: LlmEnv;
let jsonUp: McpUpstream;
let sseUp: McpUpstream;
before(async () => {
  e = await startLlmEnv();
  const responseHeaders = { ...COOKIES, 'x-upstream-note': 'kept' };
  jsonUp = await startMcpUpstream({ json: true, responseHeaders });
  sseUp = await startMcpUpstream({ responseHeaders });
});
after(async () => {
  await jsonUp.close();
  await sseUp.close();
  await e.close();
});

for (const [kind, up] of [['JSON', () => jsonUp], ['SSE', () => sseUp]] as const) {
  test(`MCP (${kind} answers): an upstream's Set-Cookie never reaches the client; its other headers do`, async () => {
    const p = await createProxy(e.t, e.user, up().url);
    const key = await createKey(e.t, p);
    const h = { authorization: `Bearer ${key}` };
    const init = await rawPost(p.pathUrl, INIT, h);
    assert.equal(init.status, 200, init.text);
    assert.equal(init.headers.get('x-upstream-note'), 'kept');
    assertNoCookie(init.headers, 'initialize');
    const sid = await rawSession(p.pathUrl, key);
    const call = await rawPost(p.pathUrl, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
      { ...h, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
    assert.equal(call.status, 200, call.text);
    assert.match(call.text, /hi/);
    assertNoCookie(call.headers, 'tools/call');
    const unknown = await rawPost(p.pathUrl, INIT, { ...h, 'mcp-session-id': 'no-such-session' });
    assert.equal(unknown.status, 404, 'an error answer is passed through as it came…');
    assertNoCookie(unknown.headers, 'a passed-through 404');
  });
}

test('LLM (JSON and stream): a provider\'s Set-Cookie never reaches the client; its other headers do', async () => {
  const p = await createLlmProxy(e, 'openai');
  const k = await createLlmKey(e, p);
  p.fake.override = (_r, res) => {
    for (const [name, value] of Object.entries(COOKIES)) res.setHeader(name, value);
    res.setHeader('x-request-id', 'req-1');
    return false;
  };
  try {
    const auth = { authorization: `Bearer ${k.key}` };
    const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
    const json = await rawLlm(`${p.base}/v1/chat/completions`, chat, auth);
    assert.equal(json.status, 200, json.text);
    assert.equal(json.headers.get('x-request-id'), 'req-1');
    assertNoCookie(json.headers, 'a JSON completion');
    const stream = await rawLlm(`${p.base}/v1/chat/completions`, { ...chat, stream: true }, auth);
    assert.equal(stream.status, 200, stream.text);
    assert.match(stream.headers.get('content-type') ?? '', /text\/event-stream/);
    assertNoCookie(stream.headers, 'a streamed completion');
  } finally {
    p.fake.override = undefined;
  }
});

const EXIT_WITH_COOKIE = `svc.response.exit(200, { answered = "lambda" }, { ["Set-Cookie"] = "planted=1; Domain=example.test", ["set-cookie2"] = "old=1", ["x-lambda"] = "yes" })`;

test('a lambda\'s svc.response.exit cannot set a cookie: Set-Cookie is dropped, the answer and its other headers go out (MCP)', async () => {
  const p = await createProxy(e.t, e.user, jsonUp.url);
  const key = await createKey(e.t, p);
  await putRules(e.t, p, [{ rule_type: 'lambda', tools: ['*'], phase: 'access', name: 'cookie-setter', lua_code: EXIT_WITH_COOKIE }]);
  const r = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${key}` });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json, { answered: 'lambda' });
  assert.equal(r.headers.get('x-lambda'), 'yes');
  assertNoCookie(r.headers, 'a lambda exit');
});

test('a lambda\'s svc.response.exit cannot set a cookie (LLM)', async () => {
  const p = await createLlmProxy(e, 'openai');
  const k = await createLlmKey(e, p);
  await putLlmRules(e, p, [{ rule_type: 'lambda', tools: ['*'], phase: 'access', name: 'cookie-setter', lua_code: EXIT_WITH_COOKIE }]);
  const r = await rawLlm(`${p.base}/v1/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${k.key}` });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json, { answered: 'lambda' });
  assert.equal(r.headers.get('x-lambda'), 'yes');
  assertNoCookie(r.headers, 'a lambda exit');
});
