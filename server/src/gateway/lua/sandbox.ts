// The Lua state of one compiled lambda and the read-only library it sees.
//
// What a lambda can reach: its own _ENV (a fresh table per call holding `svc` and `setmetatable`), the values
// under `svc`, and string methods through the string metatable. Everything shared between calls is read-only:
// `svc` and its sub-tables are empty proxies whose metatable (__index = the real table, __newindex = error,
// __metatable = locked) cannot be replaced, and the string metatable is unreachable (no getmetatable). The base
// library's global table (load, dofile, print, ...) is emptied after we took what we expose, and the io, os,
// package, debug, coroutine, utf8 and fengari/js libraries are never opened.
import type { LuaCFunction } from 'fengari';
import type { Budget } from './budget.ts';
import { patternFunctions } from './patterns.ts';
import { lauxlib, lua, lualib, pushOwned, raise, type LuaState } from './vm.ts';

/** Lua base functions offered as svc.<name> (the only globals are svc and setmetatable). */
export const BASE_HELPERS = ['pairs', 'ipairs', 'next', 'type', 'tostring', 'tonumber', 'select', 'error'] as const;
const STRING_FUNCS = ['char', 'len', 'lower', 'upper', 'reverse', 'sub'] as const;
/** string.byte pushes one value per byte: more than this in one call is refused (and every value is charged). */
const MAX_BYTE_VALUES = 65536;
const MATH_FUNCS = ['abs', 'acos', 'asin', 'atan', 'ceil', 'cos', 'deg', 'exp', 'floor', 'fmod', 'log', 'max', 'min',
  'modf', 'rad', 'random', 'sin', 'sqrt', 'tan', 'tointeger', 'type', 'ult', 'huge', 'pi', 'maxinteger', 'mininteger'] as const;

/** Sets fields of the table at the top of the stack. */
export function setFunctions(L: LuaState, fns: Record<string, LuaCFunction>): void {
  for (const [name, fn] of Object.entries(fns)) {
    lua.lua_pushjsfunction(L, fn);
    lua.lua_setfield(L, -2, name);
  }
}

/**
 * Replaces the table at the top of the stack by a read-only proxy of it. Writes raise
 * "<name> is read-only"; setmetatable on the proxy fails (protected metatable); rawset is not exposed.
 */
export function makeReadOnly(L: LuaState, name: string, index?: LuaCFunction): void {
  lua.lua_createtable(L, 0, 0); // proxy
  lua.lua_createtable(L, 0, 3); // its metatable
  if (index) lua.lua_pushjsfunction(L, index);
  else lua.lua_pushvalue(L, -3);
  lua.lua_setfield(L, -2, '__index');
  lua.lua_pushjsfunction(L, (L2) => raise(L2, `${name} is read-only`));
  lua.lua_setfield(L, -2, '__newindex');
  lua.lua_pushstring(L, 'locked');
  lua.lua_setfield(L, -2, '__metatable');
  lua.lua_setmetatable(L, -2);
  lua.lua_remove(L, -2);
}

/** Copies fields `names` from the table at `from` into the table at the top of the stack. */
function copyFields(L: LuaState, from: number, names: readonly string[]): void {
  for (const n of names) {
    lua.lua_getfield(L, from, n);
    lua.lua_setfield(L, -2, n);
  }
}

function openLib(L: LuaState, name: string, open: LuaCFunction): number {
  lauxlib.luaL_requiref(L, name, open, 0);
  return lua.lua_gettop(L);
}

function byteLength(L: LuaState, idx: number): number {
  const t = lua.lua_type(L, idx);
  if (t === lua.LUA_TSTRING) return (lua.lua_tolstring(L, idx) as Uint8Array).length;
  return 512; // a formatted number, boolean or nil: bounded by the format's width and precision (at most 99)
}

/** string.format with the result size checked before it is built; __tostring results are resolved first. */
function guardedFormat(budget: Budget, original: LuaCFunction): LuaCFunction {
  return (L) => {
    const fmt = lauxlib.luaL_checkstring(L, 1);
    const top = lua.lua_gettop(L);
    let bound = fmt.length;
    for (let i = 2; i <= top; i++) {
      const t = lua.lua_type(L, i);
      if (t === lua.LUA_TTABLE || t === lua.LUA_TUSERDATA || t === lua.LUA_TLIGHTUSERDATA) {
        lauxlib.luaL_tolstring(L, i);
        lua.lua_replace(L, i);
      }
      bound += byteLength(L, i);
    }
    budget.checkString(L, bound);
    return original(L); // same frame: the original sees the same arguments
  };
}

/** string.rep built natively (Buffer.fill repeats a pattern) after checking the result size. */
function guardedRep(budget: Budget): LuaCFunction {
  return (L) => {
    const s = lauxlib.luaL_checkstring(L, 1);
    const n = lauxlib.luaL_checkinteger(L, 2);
    const sep = lauxlib.luaL_optlstring(L, 3, '') as Uint8Array;
    if (n <= 0 || s.length + sep.length === 0) {
      lua.lua_pushstring(L, '');
      return 1;
    }
    const total = n * s.length + (n - 1) * sep.length;
    budget.checkString(L, total);
    budget.charge(L, total >> 8);
    const unit = Buffer.concat([s, sep]);
    const out = Buffer.allocUnsafe(n * unit.length).fill(unit);
    pushOwned(L, out.subarray(0, total));
    return 1;
  };
}

/** table.concat with its result size summed (and each element charged) before anything is built. */
function guardedConcat(budget: Budget, original: LuaCFunction): LuaCFunction {
  return (L) => {
    lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
    const sep = lauxlib.luaL_optlstring(L, 2, '') as Uint8Array;
    const i = lauxlib.luaL_optinteger(L, 3, 1);
    const j = lua.lua_type(L, 4) <= 0 ? lauxlib.luaL_len(L, 1) : lauxlib.luaL_checkinteger(L, 4);
    let total = 0;
    for (let k = i; k <= j; k++) {
      budget.charge(L, 1);
      lua.lua_geti(L, 1, k);
      const t = lua.lua_type(L, -1);
      if (t === lua.LUA_TSTRING) total += (lua.lua_tolstring(L, -1) as Uint8Array).length;
      else if (t === lua.LUA_TNUMBER) total += 32;
      else { lua.lua_pop(L, 1); break; } // the original raises its own error for this element
      lua.lua_pop(L, 1);
      total += k < j ? sep.length : 0;
      budget.checkString(L, total);
    }
    return original(L); // same frame: the original sees the same arguments
  };
}

/** table functions whose cost grows with #t (insert/remove shift, sort compares): charged before they run. */
function chargedByLength(budget: Budget, original: LuaCFunction, cost: (n: number) => number): LuaCFunction {
  return (L) => {
    lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
    const n = lauxlib.luaL_len(L, 1);
    budget.charge(L, Math.max(0, cost(n)));
    return original(L); // same frame: the original sees the same arguments
  };
}

function chargedUnpack(budget: Budget, original: LuaCFunction): LuaCFunction {
  return (L) => {
    const i = lauxlib.luaL_optinteger(L, 2, 1);
    const j = lua.lua_type(L, 3) <= 0 ? lauxlib.luaL_len(L, 1) : lauxlib.luaL_checkinteger(L, 3);
    budget.charge(L, Math.max(0, j - i));
    return original(L); // same frame: the original sees the same arguments
  };
}

/** string.byte, charged per value it returns, with their count bounded. */
function chargedByte(budget: Budget, original: LuaCFunction): LuaCFunction {
  return (L) => {
    const len = lauxlib.luaL_checklstring(L, 1).length;
    const at = (v: number) => (v >= 0 ? v : Math.max(0, len + v + 1));
    const i = Math.max(1, at(lauxlib.luaL_optinteger(L, 2, 1)));
    const j = Math.min(len, at(lua.lua_type(L, 3) <= 0 ? i : lauxlib.luaL_checkinteger(L, 3)));
    const n = Math.max(0, j - i + 1);
    if (n > MAX_BYTE_VALUES) raise(L, `string.byte returns at most ${MAX_BYTE_VALUES} values`);
    budget.charge(L, n);
    return original(L);
  };
}

/** tonumber reads its whole argument: a long string costs its length. */
function chargedToNumber(budget: Budget, original: LuaCFunction): LuaCFunction {
  return (L) => {
    if (lua.lua_type(L, 1) === lua.LUA_TSTRING) budget.charge(L, lauxlib.luaL_checklstring(L, 1).length);
    return original(L);
  };
}

function getFn(L: LuaState, lib: number, name: string): LuaCFunction {
  lua.lua_getfield(L, lib, name);
  const fn = lua.lua_topointer(L, -1);
  lua.lua_pop(L, 1);
  if (typeof fn !== 'function') throw new Error(`fengari: ${name} is not a light JS function`);
  return fn as LuaCFunction;
}

/** Pushes the sandbox string library (also installed as the string metatable's __index). */
function pushStringLib(L: LuaState, budget: Budget, lib: number): void {
  lua.lua_createtable(L, 0, 16);
  copyFields(L, lib, STRING_FUNCS);
  setFunctions(L, {
    byte: chargedByte(budget, getFn(L, lib, 'byte')),
    ...patternFunctions(budget),
    format: guardedFormat(budget, getFn(L, lib, 'format')),
    rep: guardedRep(budget),
  });
}

function pushTableLib(L: LuaState, budget: Budget, lib: number): void {
  lua.lua_createtable(L, 0, 5);
  setFunctions(L, {
    concat: guardedConcat(budget, getFn(L, lib, 'concat')),
    insert: chargedByLength(budget, getFn(L, lib, 'insert'), (n) => n),
    remove: chargedByLength(budget, getFn(L, lib, 'remove'), (n) => n),
    sort: chargedByLength(budget, getFn(L, lib, 'sort'), (n) => (n > 1 ? Math.ceil(n * Math.log2(n) * 4) : 0)),
    unpack: chargedUnpack(budget, getFn(L, lib, 'unpack')),
  });
}

export interface Sandbox {
  L: LuaState;
  /** Registry references of the entries every call's _ENV receives: [key, value] pairs (keys are pre-hashed strings). */
  envRefs: [number, number][];
}

/**
 * Creates the Lua state of one lambda. `fillSvc` is called with the svc table (not yet read-only) at the top of
 * the stack to add the per-request members; this module adds svc.string, svc.table, svc.math and the base helpers.
 */
export function createSandbox(budget: Budget, fillSvc: (L: LuaState) => void): Sandbox {
  const L = lauxlib.luaL_newstate();
  lua.lua_atnativeerror(L, (L2) => {
    lua.lua_pushstring(L2, 'internal error in a library function');
    return 1;
  });
  const base = openLib(L, '_G', lualib.luaopen_base);
  const str = openLib(L, 'string', lualib.luaopen_string);
  const tab = openLib(L, 'table', lualib.luaopen_table);
  const math = openLib(L, 'math', lualib.luaopen_math);

  lua.lua_createtable(L, 0, 24); // svc
  fillSvc(L);
  copyFields(L, base, BASE_HELPERS);
  setFunctions(L, { tonumber: chargedToNumber(budget, getFn(L, base, 'tonumber')) });
  pushStringLib(L, budget, str);
  installStringMetatable(L);
  makeReadOnly(L, 'svc.string');
  lua.lua_setfield(L, -2, 'string');
  pushTableLib(L, budget, tab);
  lua.lua_getfield(L, -1, 'unpack');
  lua.lua_setfield(L, -3, 'unpack'); // svc.unpack = table.unpack (5.1 habits)
  makeReadOnly(L, 'svc.table');
  lua.lua_setfield(L, -2, 'table');
  lua.lua_createtable(L, 0, MATH_FUNCS.length);
  copyFields(L, math, MATH_FUNCS);
  makeReadOnly(L, 'svc.math');
  lua.lua_setfield(L, -2, 'math');
  makeReadOnly(L, 'svc');
  const envRefs: [number, number][] = [];
  envRefs.push([ref(L, 'svc'), lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX)]);
  lua.lua_getfield(L, base, 'setmetatable');
  envRefs.push([ref(L, 'setmetatable'), lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX)]);
  emptyGlobals(L);
  lua.lua_settop(L, 0);
  return { L, envRefs };
}

/** Keeps a string in the registry: pushing it later reuses one Lua string whose table hash is computed once. */
function ref(L: LuaState, s: string): number {
  lua.lua_pushstring(L, s);
  return lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
}

/** Pushes a fresh _ENV table for one call. */
export function pushEnv(sandbox: Sandbox): void {
  const { L, envRefs } = sandbox;
  lua.lua_createtable(L, 0, envRefs.length);
  for (const [k, v] of envRefs) {
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, k);
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, v);
    lua.lua_rawset(L, -3);
  }
}

/** With the sandbox string table at the top: makes it the strings' __index (string methods) and locks the metatable. */
function installStringMetatable(L: LuaState): void {
  lua.lua_pushstring(L, '');
  if (!lua.lua_getmetatable(L, -1)) throw new Error('fengari: the string library did not set a string metatable');
  lua.lua_pushvalue(L, -3);
  lua.lua_setfield(L, -2, '__index');
  lua.lua_pushstring(L, 'locked');
  lua.lua_setfield(L, -2, '__metatable');
  lua.lua_pop(L, 2);
}

/** Removes every global the base library defined: nothing can reach them, and now nothing is there either. */
function emptyGlobals(L: LuaState): void {
  lua.lua_pushglobaltable(L);
  const g = lua.lua_gettop(L);
  const keys: string[] = [];
  lua.lua_pushnil(L);
  while (lua.lua_next(L, g)) {
    lua.lua_pop(L, 1);
    if (lua.lua_type(L, -1) === lua.LUA_TSTRING) keys.push(Buffer.from(lua.lua_tolstring(L, -1) as Uint8Array).toString());
  }
  for (const k of keys) {
    lua.lua_pushnil(L);
    lua.lua_setfield(L, g, k);
  }
  lua.lua_pop(L, 1);
}
