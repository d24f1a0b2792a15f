// The budgeted pattern functions behave exactly like fengari's own string library (results and error messages),
// and a catastrophic pattern on a large subject is stopped by the budget instead of hanging the gateway.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fengari from 'fengari';
import { compileOrThrow, makeInput } from '@tollgate/testkit/lua.ts';
import { cpuMs } from '@tollgate/testkit/cpu-time.ts';

const { lua, lauxlib } = fengari;

const SERIALIZE = `
local function ser(...)
  local out = {}
  for i = 1, select('#', ...) do
    local v = select(i, ...)
    out[#out + 1] = type(v) == 'string' and ('%q'):format(v) or tostring(v)
  end
  return '[' .. table.concat(out, ',') .. ']'
end
local function collect(it)
  local all = {}
  for a, b in it do all[#all + 1] = ser(a, b) end
  return table.concat(all, ';')
end
`;

function stripPosition(msg: string): string {
  return msg.replace(/^[\w.-]+:\d+: /, '');
}

/** Runs `return <expr>` with fengari's stock string library. */
function native(expr: string): string {
  const L = lauxlib.luaL_newstate();
  fengari.lualib.luaL_openlibs(L);
  const src = `local S = string\n${SERIALIZE}\nreturn ser(${expr})`;
  const code = fengari.to_luastring(src);
  const status = lauxlib.luaL_loadbufferx(L, code, code.length, '=native', 't');
  assert.equal(status, lua.LUA_OK, `native chunk compiles: ${expr}`);
  const r = lua.lua_pcall(L, 0, 1, 0);
  const out = fengari.to_jsstring(lua.lua_tolstring(L, -1) as Uint8Array);
  return r === lua.LUA_OK ? out : `error: ${stripPosition(out)}`;
}

/** The same expression through a lambda, with svc.string / svc.table and the svc base helpers. */
function sandboxed(expr: string): string {
  const src = `local S, table = svc.string, svc.table
local select, tostring, type = svc.select, svc.tostring, svc.type
${SERIALIZE}
svc.response.exit(200, ser(${expr}))`;
  const outcome = compileOrThrow(src).run(makeInput());
  if (outcome.kind === 'exit') return outcome.body;
  if (outcome.kind === 'error') return `error: ${stripPosition(outcome.message)}`;
  return 'continue';
}

const CASES = [
  `S.find('hello world', 'o w')`, `S.find('hello world', 'l+')`, `S.find('hello', 'l', -2)`, `S.find('hello', '', 10)`,
  `S.find('hello', '', 6)`, `S.find('a.b', '.', 1, true)`, `S.find('a+b', '+', 1, true)`, `S.find('abc', '^b')`,
  `S.find('abc', '^a')`, `S.find('abc', 'c$')`, `S.find('ab$c', 'b$c')`, `S.find('  key = value ', '(%w+)%s*=%s*(%w+)')`,
  `S.match('key=val', '(%w+)=(%w+)')`, `S.match('hello', '()ll()')`, `S.match('2024-01-31', '(%d+)-(%d+)-(%d+)')`,
  `S.match('THE (quick) fox', '%((%a+)%)')`, `S.match('f(a(b)c)d', '%b()')`, `S.match('THE (quick) fox', '%f[%a]%a+', 5)`,
  `S.match('hello', '.-l')`, `S.match('hello', '.*l')`, `S.match('hello', 'x?h')`, `S.match('aaa', 'a-$')`,
  `S.match('"quoted" text', '(["\\'])(.-)%1')`, `S.match('x = 0x1F;', '0[xX](%x+)')`, `S.match('a,b;c', '[,;]')`,
  `S.match('abc123', '[^%a]+')`, `S.match('abc-def', '[a-c%-]+')`, `S.match('Tab\\there', '%c')`, `S.match('ÀB', '%u')`,
  `S.match('a]b', '[]]')`, `S.match('a^b', '[%^]')`, `S.match('punct!?', '%p+')`, `S.match('', '.*')`,
  `S.gsub('hello world', 'o', '0')`, `S.gsub('hello world', '(o)', '[%1]')`, `S.gsub('hello', '', '-')`,
  `S.gsub('hello world', '%w+', '<%0>')`, `S.gsub('abc', '%w', '%%')`, `S.gsub('hello world', 'o', 'O', 1)`,
  `S.gsub('$name is $age', '%$(%w+)', {name = 'Ann', age = 7})`, `S.gsub('a b c', '%a', function(c) if c == 'b' then return nil end return c:upper() end)`,
  `S.gsub('abc', '^a', 'X')`, `S.gsub('x=1, y=2', '(%w+)=(%w+)', '%2=%1')`, `S.gsub('abc', '()', '%1')`,
  `S.gsub('abc', 'b*', '-')`, `S.gsub('one two', '(%w+)', '%1 %1', 5)`, `S.gsub('abc', '.', {a = 1, b = true})`,
  `collect(S.gmatch('one two three', '%a+'))`, `collect(S.gmatch('k1=v1, k2=v2', '(%w+)=(%w+)'))`, `collect(S.gmatch('abc', ''))`,
  `collect(S.gmatch('a1b2', '%a()'))`, `collect(S.gmatch('^a^a', '^a'))`,
  // patterns starting with a mandatory literal (the indexOf fast path)
  `S.gsub('a.b.c', '%.', '/')`, `S.find('xxabxab', 'ab', 4)`, `S.find('xxabxab', 'a(b)')`, `S.find('abc', 'z.')`,
  `collect(S.gmatch('k=v;k2=v2', 'k(%d*)=(%w+)'))`, `S.gsub('aaa', 'a+', 'b')`, `S.gsub('abab', 'b?', '-')`, `S.gsub('', 'a', 'b')`,
  `S.match('x]y', ']y')`, `S.gsub('a-b--c', '%-+', '_')`, `S.gsub('aXbX', 'X', '%0%0', 1)`, `S.find('hello', 'l', -2)`,
  `collect(S.gmatch('abcabc', 'b'))`, `S.gsub('a(b)c', '%(', '[')`, `S.match('ab', 'a*b')`, `S.match('bb', 'a-b')`,
  // errors
  `S.find('abc', '%')`, `S.find('abc', '[a')`, `S.match('abc', '(a')`, `S.match('abc', 'a)')`, `S.match('abc', '%1')`,
  `S.gsub('abc', 'a', '%2')`, `S.gsub('abc', 'a', '%x')`, `S.match('abc', '%b')`, `S.match('abc', '%fa')`,
  `S.gsub('abc', 'a', true)`, `S.gsub('abc', '.', function() return {} end)`, `S.find('abc', ('('):rep(40) .. 'a' .. (')'):rep(40))`,
  `S.match(('a'):rep(300), ('a?'):rep(300) .. ('a'):rep(300))`,
];

describe('Lua pattern functions (budgeted port of lstrlib)', () => {
  for (const expr of CASES) {
    it(`matches fengari for ${expr}`, () => {
      assert.equal(sandboxed(expr), native(expr));
    });
  }

  it('string methods use the same functions (s:find, s:gsub)', () => {
    const out = compileOrThrow(`svc.response.exit(200, ("a-b-c"):gsub("-", "+") .. (("x1y2"):match("%d")))`).run(makeInput());
    assert.deepEqual(out.kind === 'exit' && out.body, 'a+b+c1');
  });

  it('a catastrophic pattern on a large body stops at the budget instead of hanging', () => {
    const body = 'a'.repeat(100_000);
    const lambda = compileOrThrow(`local b = svc.request.get_body() local r = b:find('.-.-.-.-.-.-x')`);
    const { value: out, ms } = cpuMs(() => lambda.run(makeInput({ request: { headers: {}, body } })));
    assert.equal(out.kind, 'error');
    assert.match(out.kind === 'error' ? out.message : '', /budget/);
    assert.ok(ms < 1000, `stopped after ${ms.toFixed(0)} ms`);
  });

  it('gsub whose result would exceed the string limit fails with a memory budget error before building it', () => {
    const out = compileOrThrow(`local s = ('a'):rep(10000) local r = s:gsub('a', ('b'):rep(1000))`).run(makeInput());
    assert.equal(out.kind, 'error');
    assert.match(out.kind === 'error' ? out.message : '', /memory budget/);
  });
});
