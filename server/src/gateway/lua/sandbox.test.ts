// Sandbox escape attempts (issue 3 item 6): each must find nil or raise an error, and none may change what the
// next call sees.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LambdaOutcome } from './engine.ts';
import { compileOrThrow, makeInput, runOnce } from '@tollgate/testkit/lua.ts';

function exitBody(o: LambdaOutcome): string {
  assert.equal(o.kind, 'exit', JSON.stringify(o));
  return o.kind === 'exit' ? o.body : '';
}

function fails(source: string, message: RegExp): void {
  const o = runOnce(source);
  assert.equal(o.kind, 'error', `${source} → ${JSON.stringify(o)}`);
  assert.match(o.kind === 'error' ? o.message : '', message);
}

const FORBIDDEN_GLOBALS = ['os', 'io', 'require', 'load', 'loadstring', 'dofile', 'loadfile', 'string', 'table', 'math',
  'debug', 'package', 'collectgarbage', 'rawset', 'rawget', 'rawequal', 'rawlen', 'getmetatable', 'coroutine', 'utf8',
  'js', 'fengari', '_G', 'print', 'pcall', 'xpcall', 'module', 'setfenv', 'getfenv', 'newproxy', 'unpack', 'next',
  'pairs', 'ipairs', 'tostring', 'tonumber', 'type', 'select', 'error', 'assert', 'bit32', '_VERSION'];

describe('globals', () => {
  it('only svc and setmetatable exist', () => {
    const src = `local names = {} for k in svc.pairs(_ENV) do names[#names + 1] = k end svc.table.sort(names)
      svc.response.exit(200, svc.table.concat(names, ','))`;
    assert.equal(exitBody(runOnce(src)), 'setmetatable,svc');
  });

  for (const name of FORBIDDEN_GLOBALS) {
    it(`${name} is nil`, () => {
      assert.equal(exitBody(runOnce(`svc.response.exit(200, svc.type(${name}))`)), 'nil');
    });
  }

  it('calling the usual escapes fails', () => {
    fails('os.execute("id")', /attempt to index a nil value \(global 'os'\)/);
    fails('io.open("/etc/passwd")', /attempt to index a nil value \(global 'io'\)/);
    fails('require("os")', /attempt to call a nil value \(global 'require'\)/);
    fails('load("return 1")()', /attempt to call a nil value \(global 'load'\)/);
    fails('loadstring("return 1")()', /attempt to call a nil value \(global 'loadstring'\)/);
    fails('dofile("/etc/passwd")', /attempt to call a nil value \(global 'dofile'\)/);
    fails('debug.getregistry()', /attempt to index a nil value \(global 'debug'\)/);
    fails('package.loadlib("x", "y")', /attempt to index a nil value \(global 'package'\)/);
    fails('collectgarbage("count")', /attempt to call a nil value \(global 'collectgarbage'\)/);
    fails('js.global:eval("1")', /attempt to index a nil value \(global 'js'\)/);
  });
});

describe('the string library', () => {
  it('has no dump (nor pack/unpack) in svc.string or through string methods', () => {
    assert.equal(exitBody(runOnce(`svc.response.exit(200, svc.type(svc.string.dump) .. svc.type(("").dump) ..
      svc.type(svc.string.pack) .. svc.type(("").unpack))`)), 'nilnilnilnil');
    fails('("").dump(function() end)', /attempt to call a nil value \(field 'dump'\)/);
  });

  it('the string metatable cannot be reached or changed', () => {
    fails('getmetatable("").__index = {}', /attempt to call a nil value \(global 'getmetatable'\)/);
    fails('setmetatable("", {})', /bad argument #1 to 'setmetatable' \(table expected, got string\)/);
    fails('("").upper = nil', /attempt to index a string value/);
    assert.equal(exitBody(runOnce('svc.response.exit(200, svc.type(("").__index) .. svc.type(("").__metatable))')), 'nilnil');
  });

  it('table.move (unbounded native loop) is not offered', () => {
    assert.equal(exitBody(runOnce('svc.response.exit(200, svc.type(svc.table.move))')), 'nil');
  });

  it('math.randomseed (process-wide state in fengari) is not offered', () => {
    assert.equal(exitBody(runOnce('svc.response.exit(200, svc.type(svc.math.randomseed))')), 'nil');
  });
});

describe('protected tables', () => {
  const writes = ['svc.x = 1', 'svc.log = nil', 'svc.log.info = nil', 'svc.context.tool_name = "x"', 'svc.request.get_body = nil',
    'svc.response.exit = nil', 'svc.json.null = 1', 'svc.string.upper = nil', 'svc.table.concat = nil', 'svc.math.pi = 3'];
  for (const w of writes) {
    it(`${w} raises "read-only"`, () => fails(w, /is read-only$/));
  }

  const metas = ['svc', 'svc.log', 'svc.context', 'svc.request', 'svc.response', 'svc.json', 'svc.string', 'svc.table', 'svc.math'];
  for (const t of metas) {
    it(`setmetatable(${t}, ...) fails: protected metatable`, () => fails(`setmetatable(${t}, {})`, /cannot change a protected metatable/));
  }

  it('iterating svc shows nothing (the real tables stay hidden)', () => {
    assert.equal(exitBody(runOnce('svc.response.exit(200, svc.type(svc.next(svc)) .. svc.type(svc.next(svc.string)))')), 'nilnil');
  });

  it('decoded JSON arrays keep their marker metatable (it cannot be swapped to reach it)', () => {
    fails('setmetatable(svc.json.decode("[1]"), {})', /cannot change a protected metatable/);
  });

  it('a failed write leaves svc intact for the next call', () => {
    const lambda = compileOrThrow(`
      if svc.context.tool_name == 'attacker' then svc.string.upper = function() return 'pwned' end end
      svc.response.exit(200, ('ok'):upper())`);
    const attack = lambda.run(makeInput({ context: { proxy_id: 'p', client_ip: '1', tool_name: 'attacker' } }));
    assert.equal(attack.kind, 'error');
    assert.equal(exitBody(lambda.run(makeInput())), 'OK');
  });
});

describe('control-flow escapes', () => {
  it('there is no pcall, xpcall or coroutine to catch svc.response.exit or a budget error', () => {
    assert.equal(exitBody(runOnce('svc.response.exit(200, svc.type(svc.pcall) .. svc.type(svc.xpcall) .. svc.type(svc.coroutine))')), 'nilnilnil');
  });

  it('exit raised inside a callback (gsub, sort, metamethod) still ends the whole lambda', () => {
    const cases = [
      '("abc"):gsub(".", function() svc.response.exit(401, "from gsub") end)',
      'svc.table.sort({3, 2, 1}, function() svc.response.exit(401, "from sort") end)',
      'local t = setmetatable({}, { __index = function() svc.response.exit(401, "from __index") end }) local x = t.y',
      'svc.tostring(setmetatable({}, { __tostring = function() svc.response.exit(401, "from __tostring") end }))',
    ];
    for (const c of cases) {
      const o = runOnce(`${c} svc.response.exit(200, "not reached")`);
      assert.equal(o.kind === 'exit' && o.status, 401, `${c} → ${JSON.stringify(o)}`);
    }
  });

  it('a binary (precompiled) chunk is refused at compile time', () => {
    assert.throws(() => compileOrThrow('\x1bLua\x53\x00\x19\x93\r\n\x1a\n'), /binary chunk/);
  });
});
