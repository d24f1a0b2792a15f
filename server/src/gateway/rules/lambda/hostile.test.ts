// Hostile lambdas through the gateway (issue "Hardening", part 2): code that loops, recurses, allocates without
// bound, runs a catastrophic Lua pattern or tries an escape is stopped with the documented outcome (JSON-RPC -32002,
// a lambda_error event naming the reason), in bounded time, and the gateway keeps serving: the next request on a
// healthy proxy, and on the same proxy once its rule is fixed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { createKey, createProxy, flushedEvents, INIT, putRules, rawPost, type ProxyUnderTest } from '@tollgate/testkit/mcp-kit.ts';

let t: TestApp;
let up: McpUpstream;
let user: TestUser;
let healthy: ProxyUnderTest;
let healthyKey: string;

before(async () => {
  t = await startTestApp();
  up = await startMcpUpstream();
  user = await t.createUser();
  healthy = await createProxy(t, user, up.url);
  healthyKey = await createKey(t, healthy);
});
after(async () => {
  await up.close();
  await t.close();
});

/** [what, Lua, the reason the lambda_error event must give] */
const HOSTILE: Array<[string, string, RegExp]> = [
  ['an endless loop', 'while true do end', /exceeded its (instruction|time) budget/],
  ['an endless loop in a metamethod', 'local t = setmetatable({}, { __index = function(t, k) while true do end end }) local x = t.y', /budget/],
  ['unbounded recursion', 'local function f(n) return 1 + f(n + 1) end f(1)', /exceeded its (stack|time) budget|stack overflow/],
  ['mutual recursion through metamethods', 'local m = {} m.__index = function(t, k) return t[k .. "x"] end local t = setmetatable({}, m) local x = t.a', /budget|stack overflow/],
  ['a string doubled without end', 'local s = "x" while true do s = s .. s end', /budget|string/],
  ['string.rep of a gigabyte', 'local s = ("x"):rep(2^30)', /string|budget|too large/],
  ['a table grown without end', 'local t = {} local i = 0 while true do i = i + 1 t[i] = {i} end', /budget/],
  ['many large strings kept alive', 'local t = {} for i = 1, 1e6 do t[i] = ("x"):rep(1e6) .. i end', /budget|string/],
  ['a catastrophic Lua pattern on a large subject', 'local s = ("a"):rep(200000) local x = s:find("(a*)*b")', /budget/],
  // decode answers nil and a reason instead of failing (documented); the lambda then fails with that reason.
  ['svc.json.decode of JSON nested 100,000 deep', 'local x, err = svc.json.decode(("["):rep(100000) .. ("]"):rep(100000)) svc.error(err)', /nest|deep|depth/i],
  ['os.execute', 'os.execute("id")', /attempt to index a nil value \(global 'os'\)/],
  ['io.open', 'io.open("/etc/passwd")', /attempt to index a nil value \(global 'io'\)/],
  ['load', 'load("return 1")()', /attempt to call a nil value \(global 'load'\)/],
  ['loadstring', 'loadstring("return 1")()', /attempt to call a nil value \(global 'loadstring'\)/],
  ['dofile', 'dofile("/etc/passwd")', /attempt to call a nil value \(global 'dofile'\)/],
  ['require', 'require("os")', /attempt to call a nil value \(global 'require'\)/],
  ['debug.getregistry', 'debug.getregistry()', /attempt to index a nil value \(global 'debug'\)/],
  ['string.dump through a string method', '("").dump(function() end)', /attempt to call a nil value \(field 'dump'\)/],
  ['getmetatable of a string', 'getmetatable("").__index.dump = 1', /attempt to call a nil value \(global 'getmetatable'\)/],
  ['coroutine.wrap', 'coroutine.wrap(function() end)()', /attempt to index a nil value \(global 'coroutine'\)/],
  ['setfenv', 'setfenv(1, {})', /attempt to call a nil value \(global 'setfenv'\)/],
  ['package.loadlib', 'package.loadlib("libc.so.6", "system")', /attempt to index a nil value \(global 'package'\)/],
  ['a replaced _ENV', 'local _ENV = setmetatable({}, { __index = function(_, k) return k end }) os.execute("id")', /attempt to call a nil value \(field 'execute'\)/],
  ['_ENV upvalue games', 'local f = function() return _ENV end _ENV = nil local e = f() e.svc.x = 1', /attempt to index a nil value/],
  ['writing to svc', 'svc.response.exit = function() end', /read-only/],
  ['the JavaScript bridge', 'js.global:eval("process.exit(1)")', /attempt to index a nil value \(global 'js'\)/],
];

async function serves(p: ProxyUnderTest, key: string): Promise<void> {
  const started = Date.now();
  const r = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${key}` });
  assert.equal(r.status, 200, r.text);
  assert.ok(r.json?.result?.serverInfo || r.text.includes('serverInfo'), r.text.slice(0, 200));
  assert.ok(Date.now() - started < 3000, `a healthy request took ${Date.now() - started} ms`);
}

test('hostile lambdas are stopped with -32002 and a lambda_error naming the reason; the gateway keeps serving', async () => {
  const p = await createProxy(t, user, up.url);
  const key = await createKey(t, p);
  const rssBefore = process.memoryUsage().rss;
  for (const [what, lua, reason] of HOSTILE) {
    await putRules(t, p, [{ rule_type: 'lambda', tools: ['*'], phase: 'access', name: 'hostile', lua_code: lua }]);
    const started = Date.now();
    const r = await rawPost(p.pathUrl, INIT, { authorization: `Bearer ${key}` });
    const ms = Date.now() - started;
    assert.equal(r.status, 200, `${what}: ${r.text.slice(0, 300)}`);
    assert.equal(r.json?.error?.code, -32002, `${what}: ${r.text.slice(0, 300)}`);
    assert.equal(r.json.error.message, 'Request blocked: lambda rule "hostile" failed', what);
    assert.ok(ms < 5000, `${what} took ${ms} ms`);
    const ev = (await flushedEvents(t, p.id)).at(-1)!;
    assert.equal(ev.event_type, 'lambda_error', what);
    assert.match(String(ev.details.error), reason, `${what}: ${String(ev.details.error)}`);
    await serves(healthy, healthyKey);
  }
  // The same proxy with its rule fixed serves again, and the process did not keep what the lambdas allocated.
  await putRules(t, p, [{ rule_type: 'lambda', tools: ['*'], phase: 'access', name: 'fixed', lua_code: 'svc.log.info("ok")' }]);
  await serves(p, key);
  const grownMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  assert.ok(grownMb < 512, `the process grew by ${grownMb.toFixed(0)} MB`);
});
