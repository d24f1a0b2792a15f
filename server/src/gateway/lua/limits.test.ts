// Runaway code is stopped by the budgets (instructions, wall clock, string size, total string bytes, stack depth)
// in bounded time, reported as { kind: 'error' }, and the lambda works again on the next call.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_LIMITS, type LambdaLimits, type LambdaOutcome } from './engine.ts';
import { compileOrThrow, makeInput } from '@tollgate/testkit/lua.ts';
import { cpuMs } from '@tollgate/testkit/cpu-time.ts';

/** Runs and returns the error message and elapsed milliseconds; fails if the outcome is not an error. */
function stopped(source: string, limits?: Partial<LambdaLimits>, body = ''): { message: string; ms: number } {
  const lambda = compileOrThrow(source, limits);
  const { value: o, ms } = cpuMs((): LambdaOutcome => lambda.run(makeInput({ request: { headers: {}, body } })));
  assert.equal(o.kind, 'error', `${source.slice(0, 80)} → ${JSON.stringify(o).slice(0, 200)}`);
  return { message: o.kind === 'error' ? o.message : '', ms };
}

// Generous: the wall-clock budget is 50 ms, and what matters is "bounded", not "fast". Measured in CPU time, so a
// shared CI machine under load cannot push a bounded lambda over it.
const BOUND_MS = 1500;

describe('instruction and time budgets', () => {
  it('`while true do end` is stopped within a bounded time', () => {
    const { message, ms } = stopped('while true do end');
    assert.match(message, /lambda exceeded its (instruction|time) budget/);
    assert.ok(ms < BOUND_MS, `${ms} ms`);
  });

  it('the instruction budget applies on its own', () => {
    const { message } = stopped('local i = 0 while true do i = i + 1 end', { instructions: 50_000, wallMs: 60_000 });
    assert.equal(message, 'lambda exceeded its instruction budget (50000)');
  });

  it('the wall-clock budget applies on its own', () => {
    const { message, ms } = stopped('while true do end', { instructions: 1e12, wallMs: 20 });
    assert.equal(message, 'lambda exceeded its time budget (20 ms)');
    assert.ok(ms < BOUND_MS, `${ms} ms`);
  });

  it('infinite tail recursion is stopped', () => {
    assert.match(stopped('local function f() return f() end f()').message, /budget/);
  });

  it('deep recursion is stopped by the stack budget', () => {
    const { message, ms } = stopped('local function f(n) return 1 + f(n + 1) end f(1)');
    assert.match(message, /lambda exceeded its (stack|time) budget/);
    assert.ok(ms < BOUND_MS, `${ms} ms`);
  });

  it('loops inside callbacks and metamethods are counted too (no escape through the C boundary)', () => {
    const cases = [
      '("abc"):gsub(".", function() while true do end end)',
      'svc.table.sort({3, 2, 1}, function() while true do end end)',
      'local t = setmetatable({}, { __index = function() while true do end end }) local x = t.k',
      'svc.tostring(setmetatable({}, { __tostring = function() while true do end end }))',
    ];
    for (const c of cases) assert.match(stopped(c).message, /budget/, c);
  });

  it('native loops driven by metamethods are charged (table.concat, insert, unpack)', () => {
    assert.match(stopped('local t = setmetatable({}, { __index = svc.tostring }) local s = svc.table.concat(t, "", 1, 1e9)').message, /budget/);
    assert.match(stopped('local t = setmetatable({}, { __len = function() return 1e9 end }) svc.table.insert(t, 1, "x")').message, /budget/);
    assert.match(stopped('local x = svc.unpack({}, 1, 1e8)').message, /budget/);
  });

  it('sorting a huge table is charged before it starts', () => {
    assert.match(stopped('local t = {} for i = 1, 300000 do t[i] = -i end svc.table.sort(t)').message, /budget/);
  });

  it('the budget starts afresh on every call', () => {
    const lambda = compileOrThrow('if svc.request.get_header("x-spin") then while true do end end svc.response.exit(200, "ok")');
    assert.equal(lambda.run(makeInput({ request: { headers: { 'x-spin': '1' }, body: '' } })).kind, 'error');
    assert.deepEqual(lambda.run(makeInput()), { kind: 'exit', status: 200, body: 'ok', headers: {} });
  });
});

describe('memory budget', () => {
  const MAX = DEFAULT_LIMITS.maxStringBytes;

  it('string.rep beyond the string limit fails before allocating', () => {
    const { message, ms } = stopped('local s = ("x"):rep(1e9)');
    assert.equal(message, `lambda exceeded its memory budget (string of 1000000000 bytes; limit ${MAX})`);
    assert.ok(ms < BOUND_MS, `${ms} ms`);
  });

  it('doubling a string with `..` stops at the limit', () => {
    assert.match(stopped('local s = "x" for i = 1, 64 do s = s .. s end').message, /memory budget \(string of \d+ bytes/);
  });

  it('many large strings kept in a table stop at the total-bytes limit (or the clock)', () => {
    const { message, ms } = stopped('local t, s = {}, ("x"):rep(1e6) for i = 1, 1e6 do t[i] = s .. i end');
    assert.match(message, /lambda exceeded its (memory|time) budget/);
    assert.ok(ms < BOUND_MS, `${ms} ms`);
  });

  it('table growth is bounded by the instruction and time budgets', () => {
    assert.match(stopped('local t = {} while true do t[#t + 1] = {} end').message, /budget/);
  });

  it('table.concat and string.format check the result size before building it', () => {
    assert.match(stopped('local t = {} local s = ("x"):rep(1e6) for i = 1, 10 do t[i] = s end local r = svc.table.concat(t)').message,
      /memory budget \(string of/);
    assert.match(stopped('local s = ("x"):rep(1e6) local r = ("%s%s%s%s%s"):format(s, s, s, s, s)').message, /memory budget \(string of/);
  });

  it('gsub stops growing its result at the limit', () => {
    assert.match(stopped('local s = ("a"):rep(10000) local r = s:gsub("a", ("b"):rep(1000))').message, /memory budget \(string of/);
  });

  it('the string limit grows with the bodies the lambda is given (it can rewrite a large body)', () => {
    const body = 'x'.repeat(DEFAULT_LIMITS.maxStringBytes + 1000);
    const o = compileOrThrow('local b = svc.request.get_body() svc.response.exit(200, b:upper() .. "!")').run(makeInput({ request: { headers: {}, body } }));
    assert.equal(o.kind, 'exit', JSON.stringify(o).slice(0, 200));
    assert.equal(o.kind === 'exit' && o.body, `${body.toUpperCase()}!`);
  });

  it('a huge JSON document costs budget while it is decoded', () => {
    const body = `[${'1,'.repeat(2_000_000)}1]`;
    const { message, ms } = stopped('local x = svc.json.decode(svc.request.get_body())', {}, body);
    assert.match(message, /budget/);
    assert.ok(ms < BOUND_MS * 2, `${ms} ms`);
  });

  it('json.encode of many references to one big string fails before building the text', () => {
    const { message, ms } = stopped('local s = ("x"):rep(1e6) local t = {} for i = 1, 1000 do t[i] = s end local j = svc.json.encode(t)');
    assert.match(message, /memory budget \(string of/);
    assert.ok(ms < BOUND_MS, `${ms} ms`);
  });

  it('the guard still covers a call after another lambda ran from inside it', () => {
    const inner = compileOrThrow('local x = ("y"):rep(10)');
    const outer = compileOrThrow('svc.log.info("run inner") local s = "x" for i = 1, 64 do s = s .. s end');
    const o = outer.run(makeInput({ log: () => { inner.run(makeInput()); } }));
    assert.equal(o.kind, 'error');
    assert.match(o.kind === 'error' ? o.message : '', /memory budget/);
  });

  it('limits are configurable per lambda', () => {
    assert.equal(stopped('local s = ("x"):rep(2000)', { maxStringBytes: 1000 }).message,
      'lambda exceeded its memory budget (string of 2000 bytes; limit 1000)');
  });
});

describe('instructions that do work in proportion to a string are bounded too', () => {
  it('string.byte over a whole long string is charged per value and capped', () => {
    const { message, ms } = stopped('local s = ("x"):rep(999000) for i = 1, 1e6 do local a = s:byte(1, -1) end', { wallMs: 50 });
    assert.match(message, /string\.byte returns at most 65536 values/);
    assert.ok(ms < BOUND_MS, `${ms} ms`);
    const charged = stopped('local s = ("x"):rep(60000) for i = 1, 1e6 do local a = s:byte(1, -1) end', { wallMs: 50 });
    assert.match(charged.message, /budget/);
    assert.ok(charged.ms < BOUND_MS, `${charged.ms} ms`);
  });

  it('tonumber on a long string is charged by its length', () => {
    const { message, ms } = stopped('local s = (" "):rep(4e6) .. "1" for i = 1, 1e6 do svc.tonumber(s) end', { wallMs: 50 });
    assert.match(message, /budget/);
    assert.ok(ms < BOUND_MS, `${ms} ms`);
  });

  it('comparing two long strings in a loop is stopped by the clock within a bounded overrun', () => {
    // The production wall-clock budget (tests elsewhere use 10 s to stay deterministic on shared machines).
    const eq = stopped('local s = ("x"):rep(4e6) local t = ("x"):rep(3999999) .. "y" for i = 1, 1e6 do if s == t then end end', { wallMs: 50 });
    assert.match(eq.message, /time budget|instruction budget/);
    assert.ok(eq.ms < BOUND_MS, `${eq.ms} ms`);
  });
});

describe('pattern functions charge for long classes and replacement strings', () => {
  it('a bracket class of megabytes is charged per byte scanned', () => {
    const { message, ms } = stopped('local p = "[" .. ("a"):rep(4e6) .. "]" return ("b"):rep(1e5):find(p)', { wallMs: 50 });
    assert.match(message, /budget/);
    assert.ok(ms < BOUND_MS, `${ms} ms`);
  });

  it('a gsub replacement string is charged each time it is walked', () => {
    const { message, ms } = stopped('return ("b"):rep(1e5):gsub("()", ("%1"):rep(2e6))', { wallMs: 50 });
    assert.match(message, /budget/);
    assert.ok(ms < BOUND_MS, `${ms} ms`);
  });
});
