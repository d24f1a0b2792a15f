// svc.json: JSON ↔ Lua values, for JSON-RPC bodies.
//
// decode: objects become tables, arrays become tables marked as arrays (so `[]` round-trips as `[]`), JSON null
// becomes the sentinel svc.json.null (so keys whose value is null survive a round trip). Object key order is kept
// (fengari tables iterate in insertion order). Integers in the 32-bit range become Lua integers (fengari's integer
// type is 32-bit); other numbers are floats.
// encode: a table marked as an array (svc.json.array(t), or from decode) is an array of t[1..#t]; a table whose
// keys are exactly 1..n (n ≥ 1) is an array; any other table is an object whose keys must be strings or numbers;
// an empty unmarked table is `{}`. Functions, cycles and nesting deeper than MAX_DEPTH are errors.
// Both directions charge their work to the budget and respect the string size limit.
import type { LuaCFunction } from 'fengari';
import type { Budget } from './budget.ts';
import { lauxlib, lua, pushText, raise, text, type LuaState } from './vm.ts';

export const MAX_DEPTH = 100;
const JSON_NULL = Object.freeze({ json: 'null' });
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

class JsonError extends Error {}

interface JsonContext {
  L: LuaState;
  budget: Budget;
  arrayMtRef: number;
  pending: number;
  /** Bytes of JSON text encode has committed to so far (checked before each string is converted). */
  size: number;
}

function newContext(L: LuaState, budget: Budget, arrayMtRef: number): JsonContext {
  return { L, budget, arrayMtRef, pending: 0, size: 0 };
}

/** Grows the encoded size and fails (memory budget) before building text larger than a string may be. */
function grow(ctx: JsonContext, bytes: number): void {
  ctx.size += bytes;
  if (ctx.size > ctx.budget.maxString) ctx.budget.checkString(ctx.L, ctx.size);
}

function tick(ctx: JsonContext): void {
  if (++ctx.pending >= 256) {
    ctx.budget.charge(ctx.L, ctx.pending * 4);
    ctx.pending = 0;
  }
}

function pushValue(ctx: JsonContext, v: unknown, depth: number): void {
  const { L } = ctx;
  tick(ctx);
  if (v === null) lua.lua_pushlightuserdata(L, JSON_NULL);
  else if (typeof v === 'boolean') lua.lua_pushboolean(L, v);
  else if (typeof v === 'number') {
    if (Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX) lua.lua_pushinteger(L, v);
    else lua.lua_pushnumber(L, v);
  } else if (typeof v === 'string') pushText(L, v);
  else if (depth >= MAX_DEPTH) throw new JsonError(`nesting deeper than ${MAX_DEPTH}`);
  else if (Array.isArray(v)) pushArray(ctx, v, depth);
  else pushObject(ctx, v as Record<string, unknown>, depth);
}

function pushArray(ctx: JsonContext, arr: unknown[], depth: number): void {
  const { L } = ctx;
  lauxlib.luaL_checkstack(L, 3, 'json nesting');
  lua.lua_createtable(L, arr.length, 0);
  lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, ctx.arrayMtRef);
  lua.lua_setmetatable(L, -2);
  for (let i = 0; i < arr.length; i++) {
    pushValue(ctx, arr[i], depth + 1);
    lua.lua_rawseti(L, -2, i + 1);
  }
}

function pushObject(ctx: JsonContext, obj: Record<string, unknown>, depth: number): void {
  const { L } = ctx;
  lauxlib.luaL_checkstack(L, 3, 'json nesting');
  const keys = Object.keys(obj);
  lua.lua_createtable(L, 0, keys.length);
  for (const k of keys) {
    pushText(L, k);
    pushValue(ctx, obj[k], depth + 1);
    lua.lua_rawset(L, -3);
  }
}

function isArrayMarked(ctx: JsonContext, idx: number): boolean {
  const { L } = ctx;
  if (!lua.lua_getmetatable(L, idx)) return false;
  lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, ctx.arrayMtRef);
  const marked = lua.lua_rawequal(L, -1, -2);
  lua.lua_pop(L, 2);
  return marked;
}

function readKey(ctx: JsonContext, idx: number): string {
  const { L } = ctx;
  const t = lua.lua_type(L, idx);
  if (t === lua.LUA_TSTRING) {
    const b = lua.lua_tolstring(L, idx) as Uint8Array;
    grow(ctx, b.length + 3);
    return text(b);
  }
  grow(ctx, 24);
  if (t === lua.LUA_TNUMBER) return String(lua.lua_tonumber(L, idx));
  throw new JsonError(`cannot encode a table key of type ${text(lauxlib.luaL_typename(L, idx))}`);
}

function readMarkedArray(ctx: JsonContext, idx: number, depth: number): unknown[] {
  const { L } = ctx;
  const n = lua.lua_rawlen(L, idx);
  const out: unknown[] = [];
  for (let i = 1; i <= n; i++) {
    lua.lua_rawgeti(L, idx, i);
    out.push(readValue(ctx, lua.lua_gettop(L), depth + 1));
    lua.lua_pop(L, 1);
  }
  return out;
}

/** Reads the table at idx (absolute) as an array or an object. */
function readTable(ctx: JsonContext, idx: number, depth: number): unknown {
  const { L } = ctx;
  if (depth >= MAX_DEPTH) throw new JsonError(`nesting deeper than ${MAX_DEPTH} (or a cycle)`);
  lauxlib.luaL_checkstack(L, 4, 'json nesting');
  if (isArrayMarked(ctx, idx)) return readMarkedArray(ctx, idx, depth);
  const entries: [string | number, unknown][] = [];
  let maxInt = 0;
  lua.lua_pushnil(L);
  while (lua.lua_next(L, idx)) {
    const top = lua.lua_gettop(L);
    const intKey = lua.lua_isinteger(L, top - 1) ? lua.lua_tointeger(L, top - 1) : 0;
    if (intKey > 0 && maxInt >= 0) maxInt = Math.max(maxInt, intKey);
    else maxInt = -1;
    entries.push([intKey > 0 ? intKey : readKey(ctx, top - 1), readValue(ctx, top, depth + 1)]);
    lua.lua_pop(L, 1);
  }
  if (entries.length > 0 && maxInt === entries.length) {
    const out: unknown[] = new Array(entries.length);
    for (const [k, v] of entries) out[(k as number) - 1] = v;
    return out;
  }
  const obj: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(obj, String(k), { value: v, enumerable: true, writable: true, configurable: true });
  return obj;
}

function readValue(ctx: JsonContext, idx: number, depth: number): unknown {
  const { L } = ctx;
  tick(ctx);
  grow(ctx, 8);
  switch (lua.lua_type(L, idx)) {
    case lua.LUA_TNIL: return null;
    case lua.LUA_TBOOLEAN: return lua.lua_toboolean(L, idx);
    case lua.LUA_TNUMBER: {
      const n = lua.lua_tonumber(L, idx);
      if (!Number.isFinite(n)) throw new JsonError('cannot encode NaN or infinity');
      return n;
    }
    case lua.LUA_TSTRING: {
      const b = lua.lua_tolstring(L, idx) as Uint8Array;
      grow(ctx, b.length * 2); // escapes can double it; checked before the JS string exists
      return text(b);
    }
    case lua.LUA_TTABLE: return readTable(ctx, idx, depth);
    case lua.LUA_TLIGHTUSERDATA:
      if (lua.lua_touserdata(L, idx) === JSON_NULL) return null;
      break;
  }
  throw new JsonError(`cannot encode a ${text(lauxlib.luaL_typename(L, idx))}`);
}

function failWith(L: LuaState, err: unknown): number {
  if (!(err instanceof JsonError) && !(err instanceof SyntaxError)) throw err; // Lua errors (budget) keep unwinding
  lua.lua_pushnil(L);
  lua.lua_pushstring(L, err.message);
  return 2;
}

/**
 * The svc.json functions for one lambda. `arrayMtRef` is a registry reference to the (protected, shared, never
 * exposed) metatable that marks arrays.
 */
export function jsonFunctions(budget: Budget, arrayMtRef: number): Record<'decode' | 'encode' | 'array', LuaCFunction> {
  const decode: LuaCFunction = (L) => {
    const src = lauxlib.luaL_checkstring(L, 1);
    budget.charge(L, src.length >> 3);
    const top = lua.lua_gettop(L);
    try {
      const ctx = newContext(L, budget, arrayMtRef);
      pushValue(ctx, JSON.parse(text(src)), 0);
      return 1;
    } catch (err) {
      lua.lua_settop(L, top);
      return failWith(L, err);
    }
  };
  const encode: LuaCFunction = (L) => {
    lauxlib.luaL_checkany(L, 1);
    const top = lua.lua_gettop(L);
    try {
      const ctx = newContext(L, budget, arrayMtRef);
      const out = JSON.stringify(readValue(ctx, 1, 0));
      budget.checkString(L, out.length);
      pushText(L, out);
      return 1;
    } catch (err) {
      lua.lua_settop(L, top);
      return failWith(L, err);
    }
  };
  const array: LuaCFunction = (L) => {
    if (lua.lua_type(L, 1) <= 0) lua.lua_createtable(L, 0, 0);
    lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
    lua.lua_settop(L, 1);
    if (lua.lua_getmetatable(L, 1)) {
      lua.lua_pop(L, 1);
      if (!isArrayMarked(newContext(L, budget, arrayMtRef), 1)) lauxlib.luaL_argerror(L, 1, 'table already has a metatable');
      return 1;
    }
    lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, arrayMtRef);
    lua.lua_setmetatable(L, 1);
    return 1;
  };
  return { decode, encode, array };
}

/** Pushes svc.json.null. */
export function pushJsonNull(L: LuaState): void {
  lua.lua_pushlightuserdata(L, JSON_NULL);
}

/** Creates the array-marker metatable in L's registry and returns its reference. */
export function createArrayMarker(L: LuaState): number {
  lua.lua_createtable(L, 0, 2);
  lua.lua_pushstring(L, 'json array');
  lua.lua_setfield(L, -2, '__metatable');
  return lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
}

/** Converts a Lua value at idx to JSON text (used by svc.response.exit / set_body for table bodies). */
export function encodeAt(L: LuaState, budget: Budget, arrayMtRef: number, idx: number): string {
  try {
    return JSON.stringify(readValue(newContext(L, budget, arrayMtRef), idx, 0));
  } catch (err) {
    if (err instanceof JsonError) raise(L, `cannot encode the body as JSON: ${err.message}`);
    throw err;
  }
}
