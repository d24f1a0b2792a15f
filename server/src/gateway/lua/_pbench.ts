import fengari from 'fengari';
import { compileOrThrow, makeInput } from './test-support.ts';
const { lua, lauxlib } = fengari;
const body = 'lorem ipsum "secret":"abc" dolor sit amet, '.repeat(2000);
for (const expr of [`b:gsub('"secret":"[^"]*"', 'X')`, `b:gsub('x', 'y')`, `b:find('(%w+)@(%w+)')`, `b:gsub('%s+', ' ')`]) {
  const L = lauxlib.luaL_newstate(); fengari.lualib.luaL_openlibs(L);
  const src = fengari.to_luastring(`local b = ... for i = 1, 20 do local r = ${expr} end`);
  lauxlib.luaL_loadbufferx(L, src, src.length, 'n', 't'); const f = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
  let t0 = performance.now();
  for (let k = 0; k < 5; k++) { lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, f); lua.lua_pushstring(L, fengari.to_luastring(body)); lua.lua_pcall(L, 1, 0, 0); }
  const nat = (performance.now() - t0) / 100;
  const lam = compileOrThrow(`local b = svc.request.get_body() for i = 1, 20 do local r = ${expr} end`, { wallMs: 100000, instructions: 1e12 });
  t0 = performance.now();
  for (let k = 0; k < 5; k++) { const o = lam.run(makeInput({ request: { headers: {}, body } })); if (o.kind !== 'continue') console.log(o); }
  const ours = (performance.now() - t0) / 100;
  console.log(expr.padEnd(40), 'native', nat.toFixed(2), 'ms  ours', ours.toFixed(2), 'ms  (body', body.length, ')');
}
