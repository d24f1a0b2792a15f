// The svc surface a lambda sees (docs/lambda.md), the outcomes the gateway gets back, and per-call isolation.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileLambda, type LambdaOutcome } from './engine.ts';
import { MAX_LOG_BYTES, MAX_LOG_LINES } from './svc.ts';
import { compileOrThrow, evalLua, makeInput, runOnce, type LogLine } from '@tollgate/testkit/lua.ts';

function exitBody(o: LambdaOutcome): string {
  assert.equal(o.kind, 'exit', JSON.stringify(o));
  return o.kind === 'exit' ? o.body : '';
}

function errorMessage(o: LambdaOutcome): string {
  assert.equal(o.kind, 'error', JSON.stringify(o));
  return o.kind === 'error' ? o.message : '';
}

const responseInput = (body = '{"jsonrpc":"2.0","id":1,"result":{"secret":"s3cr3t"}}', status = 200) =>
  ({ phase: 'response' as const, response: { status, body } });

describe('compileLambda', () => {
  it('returns ok with a runnable lambda', () => {
    const r = compileLambda('local x = 1', 'my rule');
    assert.equal(r.ok, true);
    assert.deepEqual(r.ok && r.lambda.run(makeInput()), { kind: 'continue' });
  });

  it('rejects a syntax error with the line and reason', () => {
    const r = compileLambda('local x = \nif', 'bad');
    assert.deepEqual(r, { ok: false, error: "line 2: unexpected symbol near 'if'" });
  });

  it('labels runtime errors with the sanitised rule name and line', () => {
    const r = compileLambda('\nlocal x = nil + 1', 'deny evil/tools');
    assert.ok(r.ok);
    assert.match(errorMessage(r.lambda.run(makeInput())), /^deny_evil_tools:2: attempt to perform arithmetic on a nil value/);
  });
});

describe('svc.log', () => {
  it('sends info, warn and err lines to input.log, arguments joined by spaces', () => {
    const logs: LogLine[] = [];
    const src = 'svc.log.info("a", 1, true, nil) svc.log.warn("w") svc.log.err("e", 2.5)';
    assert.deepEqual(compileOrThrow(src).run(makeInput({}, logs)), { kind: 'continue' });
    assert.deepEqual(logs, [
      { level: 'info', message: 'a 1 true nil' }, { level: 'warn', message: 'w' }, { level: 'err', message: 'e 2.5' },
    ]);
  });

  it('caps the size of a line and the number of lines per call', () => {
    const logs: LogLine[] = [];
    compileOrThrow('svc.log.info(("x"):rep(10000)) for i = 1, 100 do svc.log.info(i) end').run(makeInput({}, logs));
    assert.equal(logs.length, MAX_LOG_LINES + 1);
    assert.ok((logs[0]?.message.length ?? 0) <= MAX_LOG_BYTES + 1);
    assert.match(logs.at(-1)?.message ?? '', /further log lines dropped/);
  });

  it('a logger that throws does not fail the lambda', () => {
    const input = makeInput({ log: () => { throw new Error('logger down'); } });
    assert.deepEqual(compileOrThrow('svc.log.info("x")').run(input), { kind: 'continue' });
  });
});

describe('svc.context', () => {
  it('exposes the request facts, nil when absent', () => {
    const { values } = evalLua(['svc.context.tool_name', 'svc.context.method', 'svc.context.proxy_id',
      'svc.context.credential_id', 'svc.context.client_ip', 'svc.context.model', 'svc.context.other']);
    assert.deepEqual(values, ['echo', 'tools/call', 'proxy-1', 'cred-1', '203.0.113.7', 'nil', 'nil']);
  });

  it('exposes model on LLM requests', () => {
    const { values } = evalLua(['svc.context.model'], { context: { proxy_id: 'p', client_ip: '::1', model: 'gpt-4o' } });
    assert.deepEqual(values, ['gpt-4o']);
  });

  it('is read-only', () => {
    assert.match(errorMessage(runOnce('svc.context.tool_name = "other"')), /svc\.context is read-only/);
    assert.match(errorMessage(runOnce('svc.context.new_field = 1')), /svc\.context is read-only/);
  });
});

describe('svc.request', () => {
  it('get_header is case-insensitive, nil when absent, joins repeated headers', () => {
    const headers = { 'x-team': 'blue', 'x-multi': ['a', 'b'], 'X-Odd-Case': 'yes' };
    const { values } = evalLua(['svc.request.get_header("X-TEAM")', 'svc.request.get_header("x-missing")',
      'svc.request.get_header("x-multi")', 'svc.request.get_header("x-odd-case")'], { request: { headers, body: '' } });
    assert.deepEqual(values, ['blue', 'nil', 'a, b', 'yes']);
  });

  it('get_header of a name Object.prototype has is nil, not a failure of the lambda', () => {
    const { values } = evalLua(['svc.request.get_header("constructor")', 'svc.request.get_header("__proto__")', 'svc.request.get_header("toString")'],
      { request: { headers: { 'x-team': 'blue' }, body: '' } });
    assert.deepEqual(values, ['nil', 'nil', 'nil']);
  });

  it('get_headers returns a fresh table of lower-case names', () => {
    const src = 'local h = svc.request.get_headers() h["x-team"] = "changed" svc.response.exit(200, svc.request.get_headers()["x-team"] .. "," .. h["content-type"])';
    assert.equal(exitBody(runOnce(src)), 'blue,application/json');
  });

  it('get_body returns the body as a string (UTF-8 preserved)', () => {
    const body = '{"text":"héllo ✓"}';
    assert.equal(exitBody(runOnce('svc.response.exit(200, svc.request.get_body())', { request: { headers: {}, body } })), body);
  });

  it('get_header needs a string name', () => {
    assert.match(errorMessage(runOnce('svc.request.get_header()')), /bad argument #1 to 'get_header'/);
  });
});

describe('svc.response.exit', () => {
  it('answers with status, body and headers and stops execution at once', () => {
    const logs: LogLine[] = [];
    const src = 'svc.response.exit(403, "denied", { ["X-Reason"] = "policy", ["Retry-After"] = 5 }) svc.log.info("after")';
    const out = compileOrThrow(src).run(makeInput({}, logs));
    assert.deepEqual(out, { kind: 'exit', status: 403, body: 'denied', headers: { 'x-reason': 'policy', 'retry-after': '5' } });
    assert.deepEqual(logs, []);
  });

  it('encodes a table body as JSON and defaults content-type', () => {
    const out = runOnce('svc.response.exit(429, { error = "slow down", retry = 2 })');
    assert.deepEqual(out, { kind: 'exit', status: 429, body: '{"error":"slow down","retry":2}', headers: { 'content-type': 'application/json' } });
  });

  it('works in the response phase too, and an empty body is allowed', () => {
    assert.deepEqual(runOnce('svc.response.exit(204)', responseInput()), { kind: 'exit', status: 204, body: '', headers: {} });
  });

  it('exit wins over an earlier set_body', () => {
    assert.equal(runOnce('svc.response.set_body("x") svc.response.exit(500, "y")', responseInput()).kind, 'exit');
  });

  it('validates status and headers', () => {
    assert.match(errorMessage(runOnce('svc.response.exit(99, "x")')), /status must be an integer from 200 to 599/);
    assert.match(errorMessage(runOnce('svc.response.exit(600, "x")')), /status must be an integer from 200 to 599/);
    assert.match(errorMessage(runOnce('svc.response.exit("x")')), /bad argument #1 to 'exit'/);
    assert.match(errorMessage(runOnce('svc.response.exit(403, "x", { ["Bad Name"] = "v" })')), /invalid header name/);
    assert.match(errorMessage(runOnce('svc.response.exit(403, "x", { ["x-a"] = "a\\r\\nx-b: b" })')), /invalid value for header x-a/);
    assert.match(errorMessage(runOnce('svc.response.exit(403, "x", { ["Content-Length"] = "1" })')), /content-length is set by the gateway/);
    assert.match(errorMessage(runOnce('svc.response.exit(403, 42)')), /body must be a string or a table/);
  });
});

describe('svc.response in the response phase', () => {
  it('get_status and get_body read the upstream answer', () => {
    const out = runOnce('svc.response.exit(200, svc.response.get_status() .. " " .. svc.response.get_body())', responseInput('{"a":1}', 201));
    assert.equal(exitBody(out), '201 {"a":1}');
  });

  it('set_body replaces the body (and get_body sees the new one)', () => {
    const src = `
      local body = svc.response.get_body()
      svc.response.set_body((body:gsub('"secret":"[^"]*"', '"secret":"[REDACTED]"')))
      svc.log.info(svc.response.get_body())`;
    const logs: LogLine[] = [];
    const out = compileOrThrow(src).run(makeInput(responseInput(), logs));
    assert.deepEqual(out, { kind: 'continue', responseBody: '{"jsonrpc":"2.0","id":1,"result":{"secret":"[REDACTED]"}}' });
    assert.equal(logs[0]?.message, '{"jsonrpc":"2.0","id":1,"result":{"secret":"[REDACTED]"}}');
  });

  it('set_body accepts a table (JSON-encoded)', () => {
    const out = runOnce('local m = svc.json.decode(svc.response.get_body()) m.result.secret = nil svc.response.set_body(m)', responseInput());
    assert.deepEqual(out, { kind: 'continue', responseBody: '{"jsonrpc":"2.0","id":1,"result":{}}' });
  });

  it('without set_body the outcome carries no responseBody', () => {
    assert.deepEqual(runOnce('local b = svc.response.get_body()', responseInput()), { kind: 'continue' });
  });

  it('the response accessors raise a clear error in the access phase', () => {
    for (const fn of ['get_status()', 'get_body()', 'set_body("x")']) {
      const name = fn.slice(0, fn.indexOf('('));
      assert.match(errorMessage(runOnce(`svc.response.${fn}`)), new RegExp(`svc\\.response\\.${name} is only available in the response phase`));
    }
  });
});

describe('svc helpers', () => {
  it('offers string methods, svc.string, svc.table, svc.math and the base helpers', () => {
    const { outcome, values } = evalLua([
      '("Hello"):upper()', 'svc.string.format("%05.1f|%s|%d", 3.14159, "x", 7)', '("a,b,c"):find(",", 1, true)',
      'svc.table.concat({1, 2, 3}, "-")', 'svc.math.max(3, 9, 4)', 'svc.math.floor(2.7)', 'svc.type({})', 'svc.tonumber("42") + 1',
      'svc.select("#", 1, 2, 3)', 'svc.unpack({7, 8})', '#("héllo")', 'svc.string.sub("abcdef", 2, 4)',
      '(function() local t = {} for k, v in svc.pairs({a = 1}) do t[#t + 1] = k .. v end return t[1] end)()',
      '(function() local n = 0 for _, v in svc.ipairs({5, 6, 7}) do n = n + v end return n end)()',
      '(function() local t = {3, 1, 2} svc.table.sort(t) svc.table.insert(t, 4) svc.table.remove(t, 1) return svc.table.concat(t, ",") end)()',
      'svc.next({})',
    ]);
    assert.equal(outcome.kind, 'continue');
    assert.deepEqual(values, ['HELLO', '003.1|x|7', '2', '1-2-3', '9', '2', 'table', '43', '3', '7', '6', 'bcd', 'a1', '18', '2,3,4', 'nil']);
  });

  it('svc.error fails the lambda with the given message', () => {
    assert.match(errorMessage(runOnce('svc.error("custom failure")')), /custom failure$/);
    assert.equal(errorMessage(runOnce('svc.error({})')), '(error object is a table value)');
  });

  it('setmetatable works on the lambda\'s own tables', () => {
    const src = 'local t = setmetatable({}, { __index = function(_, k) return k .. "!" end }) svc.response.exit(200, t.hi)';
    assert.equal(exitBody(runOnce(src)), 'hi!');
  });

  it('the lambda return value is ignored', () => {
    assert.deepEqual(runOnce('return 403, "ignored"'), { kind: 'continue' });
  });
});

describe('isolation between calls', () => {
  it('globals written by one call are not visible to the next', () => {
    const lambda = compileOrThrow('local seen = counter counter = (counter or 0) + 1 svc.response.exit(200, svc.tostring(seen))');
    assert.equal(exitBody(lambda.run(makeInput())), 'nil');
    assert.equal(exitBody(lambda.run(makeInput())), 'nil');
  });

  it('a call cannot leave state in _ENV\'s metatable or in shared tables', () => {
    const lambda = compileOrThrow(`
      if svc.context.tool_name == 'attacker' then
        setmetatable(_ENV, { __index = function() return 'leaked' end })
        svc.response.exit(200, 'planted')
      end
      svc.response.exit(200, svc.tostring(stash))`);
    assert.equal(exitBody(lambda.run(makeInput({ context: { proxy_id: 'p', client_ip: '1.1.1.1', tool_name: 'attacker' } }))), 'planted');
    assert.equal(exitBody(lambda.run(makeInput())), 'nil');
  });

  it('each call sees its own request', () => {
    const lambda = compileOrThrow('svc.response.exit(200, svc.request.get_body() .. svc.context.client_ip)');
    assert.equal(exitBody(lambda.run(makeInput({ request: { headers: {}, body: 'a' }, context: { proxy_id: 'p', client_ip: '1' } }))), 'a1');
    assert.equal(exitBody(lambda.run(makeInput({ request: { headers: {}, body: 'b' }, context: { proxy_id: 'p', client_ip: '2' } }))), 'b2');
  });

  it('a failed call leaves the lambda usable', () => {
    const lambda = compileOrThrow('if svc.request.get_header("x-boom") then local x = nil .. 1 end svc.response.exit(200, "ok")');
    assert.equal(lambda.run(makeInput({ request: { headers: { 'x-boom': '1' }, body: '' } })).kind, 'error');
    assert.equal(exitBody(lambda.run(makeInput())), 'ok');
  });

  it('a run from inside the logger of a running call is refused (not re-entrant)', () => {
    const lambda = compileOrThrow('svc.log.info("x")');
    let inner: LambdaOutcome | undefined;
    lambda.run(makeInput({ log: () => { inner = lambda.run(makeInput()); } }));
    assert.deepEqual(inner, { kind: 'error', message: 'lambda is already running' });
  });
});
