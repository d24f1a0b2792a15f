// Every MCP rule type at runtime (spec "Firewall rule", issue 3 item 4), through the official SDK client or raw
// Streamable HTTP, against a real SDK upstream. Each test gets its own proxy and PUTs its rules through the API.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { manualClock } from '@tollgate/testkit/clock.ts';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { SECRET_TEXT, startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { connect, createKey, createProxy, flushedEvents, INIT, putRules, rawPost, rawSession, sseMessages, type ProxyUnderTest } from '@tollgate/testkit/mcp-kit.ts';

let t: TestApp;
let up: McpUpstream;
let upJson: McpUpstream;
let user: TestUser;
// The app's clock stands still unless a test moves it: rate-limit windows and bans on the in-process state pass by
// moving it (see passTime), and every Retry-After is exact.
const clock = manualClock();

before(async () => {
  t = await startTestApp({ clock });
  up = await startMcpUpstream();
  upJson = await startMcpUpstream({ json: true });
  user = await t.createUser();
  // Every test makes its own proxies: lift this owner's MCP quota.
  const { setConsumerTags } = await import('../../identity/users.ts');
  const v = await t.app.services.db.tx((q) => setConsumerTags(q, user.consumerId, ['private:permissions:user', 'private:permissions:mcp:limit:1000', 'private:permissions:apikey:limit:1000']));
  await t.app.services.configChanged(v);
});
after(async () => {
  await up.close();
  await upJson.close();
  await t.close();
});

async function proxyWith(rules: unknown[], upstream = up): Promise<{ p: ProxyUnderTest; key: string }> {
  const p = await createProxy(t, user, upstream.url);
  await putRules(t, p, rules);
  return { p, key: await createKey(t, p, ['*'], ['*']) };
}

const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
/**
 * Lets `ms` of window time pass. On the in-process state that is moving the clock. Redis (REDIS_URL, as in CI)
 * expires its keys in real time whatever the clock says, so there the test uses 1 s windows and waits for real.
 */
const onRedis = !!process.env.REDIS_URL;
const WINDOW_S = onRedis ? 1 : 60;
async function passTime(ms: number): Promise<void> {
  if (onRedis) await new Promise((r) => setTimeout(r, ms));
  else clock.advanceMs(ms);
}

// --- ip_acl ---

test('ip_acl deny blocks the listed address with 403 and ip_blocked, before authentication', async () => {
  const { p, key } = await proxyWith([{ rule_type: 'ip_acl', tools: ['*'], action: 'deny', cidrs: ['127.0.0.1'] }]);
  const r = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${key}` });
  assert.equal(r.status, 403);
  assert.deepEqual(r.json, { error: 'Access denied by IP rule' });
  const anon = await rawPost(p.pathUrl, INIT);
  assert.equal(anon.status, 403, 'an unauthenticated request from a denied address gets 403, not 401');
  const ev = await flushedEvents(t, p.id);
  assert.equal(ev.at(-1)!.event_type, 'ip_blocked');
  assert.equal(ev.at(-1)!.rule_name, 'ip_acl#0');
  assert.equal(ev.at(-1)!.client_ip, '127.0.0.1');
});

test('ip_acl allow is default-deny; the first matching rule wins; v6 ranges do not match v4 clients', async () => {
  const cases: Array<[unknown[], number]> = [
    [[{ rule_type: 'ip_acl', tools: ['*'], action: 'allow', cidrs: ['10.0.0.0/8'] }], 403],
    [[{ rule_type: 'ip_acl', tools: ['*'], action: 'allow', cidrs: ['10.0.0.0/8', '127.0.0.0/8'] }], 200],
    [[{ rule_type: 'ip_acl', tools: ['*'], action: 'deny', cidrs: ['127.0.0.1/32'] }, { rule_type: 'ip_acl', tools: ['*'], action: 'allow', cidrs: ['127.0.0.0/8'] }], 403],
    [[{ rule_type: 'ip_acl', tools: ['*'], action: 'allow', cidrs: ['127.0.0.1'] }, { rule_type: 'ip_acl', tools: ['*'], action: 'deny', cidrs: ['127.0.0.0/8'] }], 200],
    [[{ rule_type: 'ip_acl', tools: ['*'], action: 'allow', cidrs: ['::1/128', '2001:db8::/32'] }], 403],
    [[{ rule_type: 'ip_acl', tools: ['*'], action: 'allow', cidrs: ['::ffff:127.0.0.1/128'] }], 200],
    [[{ rule_type: 'ip_acl', tools: ['*'], enabled: false, action: 'deny', cidrs: ['127.0.0.1'] }], 200],
  ];
  for (const [rules, status] of cases) {
    const { p, key } = await proxyWith(rules);
    const r = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${key}` });
    assert.equal(r.status, status, JSON.stringify(rules));
  }
});

test('ip_acl scoped to a tool blocks only calls of that tool', async () => {
  const { p, key } = await proxyWith([{ rule_type: 'ip_acl', tools: ['secret'], action: 'deny', cidrs: ['127.0.0.0/8'] }]);
  const sid = await rawSession(p.pathUrl, key);
  const h = { authorization: `Bearer ${key}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
  assert.equal((await rawPost(p.pathUrl, call(2, 'echo', { text: 'x' }), h)).status, 200);
  assert.equal((await rawPost(p.pathUrl, call(3, 'secret'), h)).status, 403);
});

// --- rate_limit ---

test('rate_limit by ip: over the threshold 429 with Retry-After and a rate_limited event', async () => {
  const { p, key } = await proxyWith([{ rule_type: 'rate_limit', tools: ['*'], name: 'per-ip', match_key: 'ip', threshold: 2, timespan: 60 }]);
  const h = { authorization: `Bearer ${key}` };
  assert.equal((await rawPost(p.pathUrl, INIT, h)).status, 200);
  assert.equal((await rawPost(p.pathUrl, INIT, h)).status, 200);
  const r = await rawPost(p.pathUrl, INIT, h);
  assert.equal(r.status, 429);
  assert.deepEqual(r.json, { error: 'Rate limit exceeded' });
  const retry = Number(r.headers.get('retry-after'));
  assert.ok(retry > 0 && retry <= 60, `Retry-After ${retry}`);
  const ev = await flushedEvents(t, p.id);
  assert.equal(ev.at(-1)!.event_type, 'rate_limited');
  assert.equal(ev.at(-1)!.rule_name, 'per-ip');
});

test('rate_limit bans by api_key and user_agent are found before authentication and hit only the banned caller', async () => {
  const { p, key } = await proxyWith([
    { rule_type: 'rate_limit', tools: ['*'], name: 'ban-key', match_key: 'api_key', threshold: 1, timespan: 60, ban_after_n_exceeded: 1, ban_timespan: 300 },
    { rule_type: 'rate_limit', tools: ['*'], name: 'ban-ua', match_key: 'user_agent', threshold: 1, timespan: 60, ban_after_n_exceeded: 1, ban_timespan: 300 },
  ]);
  const other = await createKey(t, p);
  const h = (k: string, ua: string) => ({ authorization: `Bearer ${k}`, 'user-agent': ua });
  assert.equal((await rawPost(p.pathUrl, INIT, h(key, 'ua-1'))).status, 200);
  assert.equal((await rawPost(p.pathUrl, INIT, h(key, 'ua-2'))).status, 429, 'the key is over its threshold: banned now');
  const before = up.requests.length;
  const banned = await rawPost(p.pathUrl, INIT, h(key, 'ua-3'));
  assert.deepEqual([banned.status, banned.json], [403, { error: 'IP address temporarily banned' }]);
  assert.equal((await rawPost(p.pathUrl, INIT, h(other, 'ua-4'))).status, 200, 'another key from the same address passes');
  // The user agent ua-5 goes over its own threshold and is banned whatever key it carries (fresh keys each time,
  // so the api_key rule never fires here).
  const [k1, k2, k3] = [await createKey(t, p), await createKey(t, p), await createKey(t, p)];
  assert.equal((await rawPost(p.pathUrl, INIT, h(k1, 'ua-5'))).status, 200);
  assert.equal((await rawPost(p.pathUrl, INIT, h(k2, 'ua-5'))).status, 429);
  assert.equal((await rawPost(p.pathUrl, INIT, h(k3, 'ua-5'))).status, 403);
  assert.equal(up.requests.length, before + 2, 'banned requests never reach the upstream');
});

test('rate_limit bans after ban_after_n_exceeded: 429 with Retry-After = ban_timespan, then 403 before authentication', async () => {
  const { p, key } = await proxyWith([{
    rule_type: 'rate_limit', tools: ['*'], name: 'ban-ip', match_key: 'ip', threshold: 1, timespan: 60, ban_after_n_exceeded: 2, ban_timespan: 300,
  }]);
  const h = { authorization: `Bearer ${key}` };
  assert.equal((await rawPost(p.pathUrl, INIT, h)).status, 200);
  const first = await rawPost(p.pathUrl, INIT, h);
  assert.equal(first.status, 429);
  assert.ok(Number(first.headers.get('retry-after')) <= 60);
  const banning = await rawPost(p.pathUrl, INIT, h);
  assert.equal(banning.status, 429);
  assert.equal(banning.headers.get('retry-after'), '300');
  const banned = await rawPost(p.pathUrl, INIT);
  assert.equal(banned.status, 403, 'the ban applies before authentication (no credential sent)');
  assert.deepEqual(banned.json, { error: 'IP address temporarily banned' });
  const ev = await flushedEvents(t, p.id);
  const types = ev.map((e) => e.event_type);
  assert.deepEqual(types.slice(-3), ['rate_limited', 'ip_banned', 'ip_banned']);
  assert.equal(ev.at(-2)!.details.imposed, true);
  assert.equal(ev.at(-1)!.details.imposed, false);
});

test('rate_limit match keys: user_agent, api_key and consumer count separately as they should', async () => {
  const ua = await proxyWith([{ rule_type: 'rate_limit', tools: ['*'], name: 'ua', match_key: 'user_agent', threshold: 1, timespan: 60 }]);
  const a = { authorization: `Bearer ${ua.key}`, 'user-agent': 'agent-a' };
  assert.equal((await rawPost(ua.p.pathUrl, INIT, a)).status, 200);
  assert.equal((await rawPost(ua.p.pathUrl, INIT, a)).status, 429);
  assert.equal((await rawPost(ua.p.pathUrl, INIT, { ...a, 'user-agent': 'agent-b' })).status, 200);

  const ak = await proxyWith([{ rule_type: 'rate_limit', tools: ['*'], name: 'ak', match_key: 'api_key', threshold: 1, timespan: 60 }]);
  const k2 = await createKey(t, ak.p);
  assert.equal((await rawPost(ak.p.pathUrl, INIT, { authorization: `Bearer ${ak.key}` })).status, 200);
  assert.equal((await rawPost(ak.p.pathUrl, INIT, { authorization: `Bearer ${ak.key}` })).status, 429);
  assert.equal((await rawPost(ak.p.pathUrl, INIT, { authorization: `Bearer ${k2}` })).status, 200, 'another key has its own count');

  const co = await proxyWith([{ rule_type: 'rate_limit', tools: ['*'], name: 'co', match_key: 'consumer', threshold: 1, timespan: 60 }]);
  const k3 = await createKey(t, co.p);
  assert.equal((await rawPost(co.p.pathUrl, INIT, { authorization: `Bearer ${co.key}` })).status, 200);
  assert.equal((await rawPost(co.p.pathUrl, INIT, { authorization: `Bearer ${k3}` })).status, 429, 'keys of one consumer share the count');
});

test('rate_limit dryrun never blocks but records rate_limit_dryrun; a tool-scoped limit counts only that tool', async () => {
  const { p, key } = await proxyWith([
    { rule_type: 'rate_limit', tools: ['*'], name: 'dry', match_key: 'ip', threshold: 1, timespan: 60, dryrun: true },
    { rule_type: 'rate_limit', tools: ['echo'], name: 'echo-only', match_key: 'ip', threshold: 1, timespan: 60 },
  ]);
  const sid = await rawSession(p.pathUrl, key);
  const h = { authorization: `Bearer ${key}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
  for (let i = 0; i < 3; i++) assert.equal((await rawPost(p.pathUrl, { jsonrpc: '2.0', id: 10 + i, method: 'tools/list' }, h)).status, 200);
  assert.equal((await rawPost(p.pathUrl, call(20, 'echo', { text: 'a' }), h)).status, 200);
  assert.equal((await rawPost(p.pathUrl, call(21, 'echo', { text: 'a' }), h)).status, 429);
  assert.equal((await rawPost(p.pathUrl, call(22, 'add', { a: 1, b: 1 }), h)).status, 200);
  const ev = await flushedEvents(t, p.id);
  assert.ok(ev.filter((e) => e.event_type === 'rate_limit_dryrun').length >= 3);
});

test('rate_limit fixed window resets after timespan; reset_expire_on_hit keeps pushing it back', async () => {
  const fixed = await proxyWith([{ rule_type: 'rate_limit', tools: ['*'], name: 'fixed', match_key: 'ip', threshold: 1, timespan: WINDOW_S }]);
  const sliding = await proxyWith([{ rule_type: 'rate_limit', tools: ['*'], name: 'sliding', match_key: 'ip', threshold: 1, timespan: WINDOW_S, reset_expire_on_hit: true }]);
  const window = WINDOW_S * 1000;
  const hf = { authorization: `Bearer ${fixed.key}` };
  const hs = { authorization: `Bearer ${sliding.key}` };
  assert.equal((await rawPost(fixed.p.pathUrl, INIT, hf)).status, 200);
  assert.equal((await rawPost(sliding.p.pathUrl, INIT, hs)).status, 200);
  await passTime(window * 0.65);
  assert.equal((await rawPost(fixed.p.pathUrl, INIT, hf)).status, 429);
  assert.equal((await rawPost(sliding.p.pathUrl, INIT, hs)).status, 429);
  await passTime(window * 0.65);
  assert.equal((await rawPost(fixed.p.pathUrl, INIT, hf)).status, 200, 'the fixed window expired one timespan after its first hit');
  assert.equal((await rawPost(sliding.p.pathUrl, INIT, hs)).status, 429, 'the sliding window was pushed back by the last hit');
  await passTime(window * 1.1);
  assert.equal((await rawPost(sliding.p.pathUrl, INIT, hs)).status, 200);
});

// --- tool_description_inject ---

test('tool_description_inject prepends/appends to the matching tools in tools/list only', async () => {
  const { p, key } = await proxyWith([
    { rule_type: 'tool_description_inject', tools: ['echo'], inject_text: 'NOTE:', inject_position: 'prepend' },
    { rule_type: 'tool_description_inject', tools: ['*'], inject_text: '(via Tollgate)', inject_position: 'append' },
    { rule_type: 'tool_description_inject', tools: ['add'], enabled: false, inject_text: 'DISABLED', inject_position: 'append' },
  ]);
  const c = await connect(t, p, { token: key });
  try {
    const tools = new Map((await c.client.listTools()).tools.map((x) => [x.name, x.description]));
    assert.equal(tools.get('echo'), 'NOTE:\n\nEchoes the text back\n\n(via Tollgate)');
    assert.equal(tools.get('add'), 'Adds two numbers\n\n(via Tollgate)');
    const r = await c.client.callTool({ name: 'echo', arguments: { text: 'plain' } });
    assert.deepEqual(r.content, [{ type: 'text', text: 'plain' }], 'calls are unchanged');
  } finally {
    await c.close();
  }
});

// --- response_replace ---

const redactRules = [
  { rule_type: 'response_replace', tools: ['secret', 'slow'], pattern: '\\d{4}-\\d{4}-\\d{4}-(\\d{4})', replacement: '[card ending $1]', regex_flags: '' },
  { rule_type: 'response_replace', tools: ['*'], pattern: '([a-z]+)@EXAMPLE\\.com', replacement: '$1@redacted', regex_flags: 'i', dlp_rule_id: 'email' },
];

for (const mode of ['sse', 'json'] as const) {
  test(`response_replace redacts tool results (${mode} upstream) with $N groups and flags, and emits dlp_match`, async () => {
    const { p, key } = await proxyWith(redactRules, mode === 'sse' ? up : upJson);
    const c = await connect(t, p, { token: key });
    try {
      const r = await c.client.callTool({ name: 'secret', arguments: {} });
      assert.deepEqual(r.content, [{ type: 'text', text: 'card [card ending 1111] belongs to alice@redacted' }]);
      const e = await c.client.callTool({ name: 'echo', arguments: { text: 'mail bob@example.com or 1234-5678-9012-3456' } });
      assert.deepEqual(e.content, [{ type: 'text', text: 'mail bob@redacted or 1234-5678-9012-3456' }], 'the card rule is scoped to other tools');
    } finally {
      await c.close();
    }
    const ev = await flushedEvents(t, p.id);
    const dlp = ev.filter((x) => x.event_type === 'dlp_match');
    assert.ok(dlp.length >= 3);
    assert.ok(dlp.some((x) => x.details.dlp_rule_id === 'email' && x.tool === 'echo'));
    assert.ok(!JSON.stringify(ev).includes('alice@example.com'), 'events never carry the matched text');
  });
}

test('response_replace redacts notifications streamed during a call, event by event', async () => {
  const { p, key } = await proxyWith(redactRules);
  const c = await connect(t, p, { token: key });
  try {
    const logs: string[] = [];
    c.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(String(n.params.data)); });
    await c.client.callTool({ name: 'slow', arguments: { steps: 2, delayMs: 5, secretInLog: true } });
    assert.deepEqual(logs, ['step 1 card [card ending 1111] belongs to alice@redacted', 'step 2 card [card ending 1111] belongs to alice@redacted']);
  } finally {
    await c.close();
  }
});

test('a catastrophic pattern returns at once (RE2); PCRE-only constructs are refused at PUT', async () => {
  const { p, key } = await proxyWith([{ rule_type: 'response_replace', tools: ['*'], pattern: '^(a+)+$', replacement: 'X', regex_flags: '' }]);
  const c = await connect(t, p, { token: key });
  try {
    const evil = 'a'.repeat(100_000) + '!';
    const started = Date.now();
    const r = await c.client.callTool({ name: 'echo', arguments: { text: evil } });
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
    assert.equal((r.content as Array<{ text: string }>)[0]!.text, evil);
    const m = await c.client.callTool({ name: 'echo', arguments: { text: 'aaaa' } });
    assert.deepEqual(m.content, [{ type: 'text', text: 'X' }]);
  } finally {
    await c.close();
  }
  const bad = await t.request('PUT', `/api/mcp/${p.id}/rules`, { token: user.pat, body: { rules: [{ rule_type: 'response_replace', tools: ['*'], pattern: '(a)\\1', replacement: '' }] } });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /^rules\[0\]\.pattern: /);
});

// --- lambda ---

test('lambda access: svc.response.exit answers at once; svc.context is filled; the upstream is not called', async () => {
  const lua = `
    if svc.context.tool_name == 'secret' and svc.context.method == 'tools/call' then
      svc.log.info('refusing', svc.context.client_ip)
      svc.response.exit(403, '{"error":"no secrets via ' .. svc.context.proxy_id .. '"}')
    end`;
  const { p, key } = await proxyWith([{ rule_type: 'lambda', tools: ['*'], phase: 'access', name: 'guard', lua_code: lua }]);
  const sid = await rawSession(p.pathUrl, key);
  const h = { authorization: `Bearer ${key}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
  const before = up.calls.get('secret') ?? 0;
  const r = await rawPost(p.pathUrl, call(2, 'secret'), h);
  assert.equal(r.status, 403);
  assert.deepEqual(r.json, { error: `no secrets via ${p.id}` });
  assert.equal(up.calls.get('secret') ?? 0, before);
  assert.equal((await rawPost(p.pathUrl, call(3, 'echo', { text: 'ok' }), h)).status, 200);
  const ev = await flushedEvents(t, p.id);
  assert.ok(ev.some((e) => e.event_type === 'deny' && e.rule_name === 'guard' && e.tool === 'secret'));
});

test('lambda sandbox: escape attempts and runaway loops fail closed with lambda_error and a JSON-RPC error', async () => {
  const attempts: Array<[string, string]> = [
    ['globals', `local found = {} for _, n in svc.ipairs({'os','io','require','load','loadstring','dofile','debug','package','string','_G','js'}) do
       if rawget ~= nil then found[#found+1] = 'rawget' end end
       if os or io or require or load or loadstring or dofile or debug or package or _G or js then svc.response.exit(200, 'escaped') end
       error('no escape')`],
    ['string.dump', `local s = ('x') if s.dump then svc.response.exit(200, 'dump reachable') end error('no dump')`],
    ['metatable', `local ok = setmetatable(svc, {}) svc.response.exit(200, 'svc metatable replaced')`],
    ['loop', `while true do end`],
    ['memory', `local t = {} local s = 'x' for i = 1, 40 do s = s .. s end svc.response.exit(200, 'allocated')`],
  ];
  let ran = 0;
  for (const [name, lua] of attempts) {
    const p = await createProxy(t, user, up.url);
    const put = await t.request('PUT', `/api/mcp/${p.id}/rules`, {
      token: user.pat, body: { rules: [{ rule_type: 'lambda', tools: ['*'], phase: 'access', name, lua_code: lua }] },
    });
    if (put.status === 400) continue; // refused at save time is fine too
    assert.equal(put.status, 200, put.text);
    ran++;
    const key = await createKey(t, p);
    const started = Date.now();
    const r = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${key}` });
    assert.ok(Date.now() - started < 3000, `${name} stopped in time`);
    assert.equal(r.status, 200, `${name}: ${r.text}`);
    assert.equal(r.json.error.code, -32002, name);
    assert.match(r.json.error.message, new RegExp(`lambda rule "${name}" failed`));
    assert.ok(!r.text.includes('escaped') && !r.text.includes('reachable') && !r.text.includes('replaced') && !r.text.includes('allocated'));
    const ev = await flushedEvents(t, p.id);
    assert.equal(ev.at(-1)!.event_type, 'lambda_error', name);
    assert.equal(ev.at(-1)!.rule_name, name);
  }
  assert.ok(ran >= 3, 'the runtime sandbox was exercised');
});

test('lambda response: set_body rewrites the answer per message; a failing one fails closed with lambda_error', async () => {
  const lua = `
    local msg = svc.json.decode(svc.response.get_body())
    if msg.result and msg.result.content then
      msg.result.content[1].text = svc.context.tool_name .. ':' .. msg.result.content[1].text:upper()
      svc.response.set_body(svc.json.encode(msg))
    end`;
  for (const upstream of [up, upJson]) {
    const { p, key } = await proxyWith([{ rule_type: 'lambda', tools: ['echo'], phase: 'response', name: 'upper', lua_code: lua }], upstream);
    const c = await connect(t, p, { token: key });
    try {
      const r = await c.client.callTool({ name: 'echo', arguments: { text: 'shout' } });
      assert.deepEqual(r.content, [{ type: 'text', text: 'echo:SHOUT' }]);
      const other = await c.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
      assert.deepEqual(other.content, [{ type: 'text', text: '3' }]);
    } finally {
      await c.close();
    }
  }
  // exit in the response phase: a JSON answer is replaced whole; inside an SSE stream it becomes a JSON-RPC error.
  const exitLua = `if svc.context.tool_name == 'secret' then svc.response.exit(409, '{"error":"withheld"}') end`;
  for (const [upstream, check] of [[upJson, 'json'], [up, 'sse']] as const) {
    const { p, key } = await proxyWith([{ rule_type: 'lambda', tools: ['secret'], phase: 'response', name: 'withhold', lua_code: exitLua }], upstream);
    const sid = await rawSession(p.pathUrl, key);
    const r = await rawPost(p.pathUrl, call(5, 'secret'), { authorization: `Bearer ${key}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
    if (check === 'json') {
      assert.equal(r.status, 409);
      assert.deepEqual(r.json, { error: 'withheld' });
    } else {
      const m = sseMessages(r.text).find((x) => x.id === 5);
      assert.equal(m.error.code, -32003);
      assert.equal(m.error.message, '{"error":"withheld"}');
    }
  }
  // A failing response lambda: one outcome event per request. A JSON answer's outcome is the lambda_error; a stream's
  // outcome (allow) was recorded when it started, so the failure inside it is a stream_error detail.
  for (const [upstream, outcome] of [[upJson, ['lambda_error']], [up, ['allow', 'stream_error']]] as const) {
    const { p, key } = await proxyWith([{ rule_type: 'lambda', tools: ['*'], phase: 'response', name: 'broken', lua_code: `error('boom')` }], upstream);
    const r = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${key}` });
    const msg = r.json ?? sseMessages(r.text)[0];
    assert.equal(msg.error.code, -32002);
    const ev = await flushedEvents(t, p.id);
    assert.deepEqual(ev.map((e) => e.event_type), outcome);
    const failure = ev.at(-1)!;
    assert.equal(failure.rule_name, 'broken');
    assert.equal(failure.details.phase, 'response');
    if (failure.event_type === 'stream_error') assert.equal(failure.details.reason, 'lambda_failed');
  }
});

// --- static_cache ---

test('static_cache per_identity: repeated calls are served from cache per key; the drain drops one tool only', async () => {
  const { p, key } = await proxyWith([{ rule_type: 'static_cache', tools: ['counter', 'echo'], cache_ttl: 60 }]);
  const key2 = await createKey(t, p);
  const c1 = await connect(t, p, { token: key });
  const c2 = await connect(t, p, { token: key2 });
  try {
    const text = async (c: typeof c1, name: string, args: Record<string, unknown>) => ((await c.client.callTool({ name, arguments: args })).content as Array<{ text: string }>)[0]!.text;
    const base = up.calls.get('counter') ?? 0;
    const a = await text(c1, 'counter', { key: 'x' });
    assert.equal(await text(c1, 'counter', { key: 'x' }), a, 'second call is a cache hit');
    assert.equal(up.calls.get('counter'), base + 1);
    assert.notEqual(await text(c1, 'counter', { key: 'y' }), a, 'other arguments miss');
    const b = await text(c2, 'counter', { key: 'x' });
    assert.notEqual(b, a, 'another key has its own slot');
    await text(c1, 'echo', { text: 'cached echo' });
    const echoes = up.calls.get('echo') ?? 0;
    const drain = await t.request('DELETE', `/api/mcp/${p.id}/cache?tool=counter`, { token: user.pat });
    assert.equal(drain.status, 200, drain.text);
    assert.notEqual(await text(c1, 'counter', { key: 'x' }), a, 'the drained tool misses');
    assert.equal(await text(c1, 'echo', { text: 'cached echo' }), 'cached echo');
    assert.equal(up.calls.get('echo'), echoes, 'the other tool is still cached');
  } finally {
    await c1.close();
    await c2.close();
  }
  const ev = await flushedEvents(t, p.id);
  assert.ok(ev.some((e) => e.event_type === 'allow' && e.details.cache === 'hit'));
});

test('static_cache shared: one slot for every caller', async () => {
  const { p, key } = await proxyWith([{ rule_type: 'static_cache', tools: ['*'], cache_ttl: 60, cache_isolation: 'shared' }]);
  const key2 = await createKey(t, p);
  const c1 = await connect(t, p, { token: key });
  const c2 = await connect(t, p, { token: key2 });
  try {
    const r1 = await c1.client.callTool({ name: 'counter', arguments: { key: 'shared' } });
    const r2 = await c2.client.callTool({ name: 'counter', arguments: { key: 'shared' } });
    assert.deepEqual(r2.content, r1.content);
  } finally {
    await c1.close();
    await c2.close();
  }
});

test('static_cache never answers a tool the key may not call, and entries stored under other rules are not served', async () => {
  const { p, key } = await proxyWith([{ rule_type: 'static_cache', tools: ['*'], cache_ttl: 60, cache_isolation: 'shared' }]);
  const echoOnly = await createKey(t, p, ['echo']);
  const full = await connect(t, p, { token: key });
  const narrow = await connect(t, p, { token: echoOnly });
  try {
    const cached = await full.client.callTool({ name: 'counter', arguments: { key: 'perm' } });
    // The shared slot holds the answer, but this key has no grant for `counter`: refused, not served from the cache.
    await assert.rejects(narrow.client.callTool({ name: 'counter', arguments: { key: 'perm' } }), (err: { code?: number }) => err.code === -32001);
    const again = await full.client.callTool({ name: 'counter', arguments: { key: 'perm' } });
    assert.deepEqual(again.content, cached.content, 'the permitted key still hits');

    // A redaction added after an answer was cached: the old (unredacted) entry is not served any more.
    const card = 'card 4111-1111-1111-1111';
    assert.deepEqual((await full.client.callTool({ name: 'echo', arguments: { text: card } })).content, [{ type: 'text', text: card }]);
    await putRules(t, p, [
      { rule_type: 'response_replace', tools: ['*'], pattern: '\\d{4}-\\d{4}-\\d{4}-(\\d{4})', replacement: '[card $1]', regex_flags: '' },
      { rule_type: 'static_cache', tools: ['*'], cache_ttl: 60, cache_isolation: 'shared' },
    ]);
    const after = await full.client.callTool({ name: 'echo', arguments: { text: card } });
    assert.deepEqual(after.content, [{ type: 'text', text: 'card [card 1111]' }]);
  } finally {
    await full.close();
    await narrow.close();
  }
});

// --- mcp_resource and synthetic resources ---

test('synthetic resources and mcp_resource rules are served without the upstream, merged with upstream resources', async () => {
  const p = await createProxy(t, user, up.url);
  const res = await t.request('POST', `/api/mcp/${p.id}/resources`, { token: user.pat, body: { uri: 'syn://guide', name: 'Guide', content: 'hello guide', mimeType: 'text/markdown' } });
  assert.ok(res.status === 200 || res.status === 201, res.text);
  const guideId = (res.body.resource ?? res.body).id as string;
  await putRules(t, p, [{
    rule_type: 'mcp_resource', tools: ['*'], resource_id: 'faq', uri: 'syn://faq', resource_name: 'FAQ', description: 'Questions',
    mime_type: 'text/plain', content: 'faq text', expose_as_tool: true, tool_name: 'get_faq', inject_into_tools: ['echo'], audience: ['assistant'], priority: 0.5,
  }]);
  const key = await createKey(t, p, ['*'], ['*']);
  const c = await connect(t, p, { token: key, via: 'host' });
  try {
    const list = await c.client.listResources();
    assert.deepEqual(list.resources.map((r) => r.uri).sort(), ['syn://faq', 'syn://guide', 'upstream://readme']);
    const faq = list.resources.find((r) => r.uri === 'syn://faq')!;
    assert.deepEqual(faq.annotations, { audience: ['assistant'], priority: 0.5 });
    const before = up.requests.length;
    const g = await c.client.readResource({ uri: 'syn://guide' });
    assert.deepEqual(g.contents, [{ uri: 'syn://guide', mimeType: 'text/markdown', text: 'hello guide' }]);
    const f = await c.client.callTool({ name: 'get_faq', arguments: {} });
    assert.deepEqual(f.content, [{ type: 'text', text: 'faq text' }]);
    assert.equal(up.requests.length, before, 'served without contacting the upstream');
    const tools = new Map((await c.client.listTools()).tools.map((x) => [x.name, x.description]));
    assert.ok(tools.has('get_faq'));
    assert.match(tools.get('echo')!, /See also the resource "FAQ" \(syn:\/\/faq\)/);
  } finally {
    await c.close();
  }
  // A key granted only the guide sees only the guide.
  const narrow = await createKey(t, p, ['echo'], [guideId]);
  const c2 = await connect(t, p, { token: narrow });
  try {
    assert.deepEqual((await c2.client.listResources()).resources.map((r) => r.uri), ['syn://guide']);
    await assert.rejects(c2.client.readResource({ uri: 'syn://faq' }), /not permitted/);
    await assert.rejects(c2.client.callTool({ name: 'get_faq', arguments: {} }), /not permitted/);
    assert.deepEqual((await c2.client.listTools()).tools.map((x) => x.name), ['echo']);
  } finally {
    await c2.close();
  }
});

test('an upstream without resources still serves the synthetic ones', async () => {
  const bare = await startMcpUpstream({ noResources: true });
  try {
    const p = await createProxy(t, user, bare.url);
    await t.request('POST', `/api/mcp/${p.id}/resources`, { token: user.pat, body: { uri: 'syn://only', name: 'Only', content: 'only me' } });
    const key = await createKey(t, p, ['*'], ['*']);
    const c = await connect(t, p, { token: key });
    try {
      assert.ok(c.client.getServerCapabilities()?.resources, 'the resources capability is announced');
      assert.deepEqual((await c.client.listResources()).resources.map((r) => r.uri), ['syn://only']);
      const r = await c.client.readResource({ uri: 'syn://only' });
      assert.equal((r.contents[0] as { text: string }).text, 'only me');
    } finally {
      await c.close();
    }
  } finally {
    await bare.close();
  }
});

test('rule changes apply to the next request without restart, and open sessions keep working', async () => {
  const { p, key } = await proxyWith([]);
  const c = await connect(t, p, { token: key });
  try {
    await c.client.callTool({ name: 'echo', arguments: { text: 'before' } });
    await putRules(t, p, [{ rule_type: 'response_replace', tools: ['*'], pattern: 'after', replacement: 'AFTER' }]);
    const r = await c.client.callTool({ name: 'echo', arguments: { text: 'after' } });
    assert.deepEqual(r.content, [{ type: 'text', text: 'AFTER' }]);
  } finally {
    await c.close();
  }
  assert.ok(SECRET_TEXT);
});
