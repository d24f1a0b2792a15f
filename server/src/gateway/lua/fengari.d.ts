// The part of fengari 0.1.5 (Lua 5.3 in JavaScript; it ships no types) that the lambda engine uses.
// Lua strings are byte arrays (Uint8Array); functions that accept a Lua string also accept a JS string.
declare module 'fengari' {
  export interface LuaState { readonly __luaState: unique symbol }
  export interface LuaDebug { event: number }
  export type LuaString = Uint8Array;
  export type LuaCFunction = (L: LuaState) => number;
  export type LuaHook = (L: LuaState, ar: LuaDebug) => void;

  export interface Lua {
    LUA_OK: 0; LUA_YIELD: 1; LUA_ERRRUN: 2; LUA_ERRSYNTAX: 3; LUA_ERRMEM: 4; LUA_ERRGCMM: 5; LUA_ERRERR: 6;
    LUA_TNONE: -1; LUA_TNIL: 0; LUA_TBOOLEAN: 1; LUA_TLIGHTUSERDATA: 2; LUA_TNUMBER: 3; LUA_TSTRING: 4;
    LUA_TTABLE: 5; LUA_TFUNCTION: 6; LUA_TUSERDATA: 7; LUA_TTHREAD: 8;
    LUA_MASKCOUNT: number;
    LUA_REGISTRYINDEX: number;
    LUA_RIDX_GLOBALS: number;
    lua_upvalueindex(i: number): number;
    lua_sethook(L: LuaState, f: LuaHook | null, mask: number, count: number): void;
    lua_atnativeerror(L: LuaState, f: LuaCFunction): LuaCFunction | null;
    lua_pcall(L: LuaState, nargs: number, nresults: number, msgh: number): number;
    lua_call(L: LuaState, nargs: number, nresults: number): void;
    lua_error(L: LuaState): never;
    lua_gettop(L: LuaState): number;
    lua_settop(L: LuaState, idx: number): void;
    lua_pop(L: LuaState, n: number): void;
    lua_pushvalue(L: LuaState, idx: number): void;
    lua_insert(L: LuaState, idx: number): void;
    lua_replace(L: LuaState, idx: number): void;
    lua_remove(L: LuaState, idx: number): void;
    lua_checkstack(L: LuaState, n: number): boolean;
    lua_pushnil(L: LuaState): void;
    lua_pushboolean(L: LuaState, b: boolean): void;
    lua_pushinteger(L: LuaState, n: number): void;
    lua_pushnumber(L: LuaState, n: number): void;
    lua_pushstring(L: LuaState, s: LuaString | string): LuaString;
    lua_pushlstring(L: LuaState, s: LuaString, len: number): LuaString;
    lua_pushjsfunction(L: LuaState, f: LuaCFunction): void;
    lua_pushjsclosure(L: LuaState, f: LuaCFunction, n: number): void;
    lua_pushlightuserdata(L: LuaState, p: object): void;
    lua_pushglobaltable(L: LuaState): void;
    lua_createtable(L: LuaState, narr: number, nrec: number): void;
    lua_newtable(L: LuaState): void;
    lua_setfield(L: LuaState, idx: number, k: LuaString | string): void;
    lua_getfield(L: LuaState, idx: number, k: LuaString | string): number;
    lua_rawset(L: LuaState, idx: number): void;
    lua_rawget(L: LuaState, idx: number): number;
    lua_gettable(L: LuaState, idx: number): number;
    lua_rawseti(L: LuaState, idx: number, n: number): void;
    lua_rawgeti(L: LuaState, idx: number, n: number): number;
    lua_geti(L: LuaState, idx: number, n: number): number;
    lua_rawlen(L: LuaState, idx: number): number;
    lua_rawequal(L: LuaState, a: number, b: number): boolean;
    lua_next(L: LuaState, idx: number): boolean;
    lua_type(L: LuaState, idx: number): number;
    lua_isinteger(L: LuaState, idx: number): boolean;
    lua_isstring(L: LuaState, idx: number): boolean;
    lua_toboolean(L: LuaState, idx: number): boolean;
    lua_tonumber(L: LuaState, idx: number): number;
    lua_tointeger(L: LuaState, idx: number): number;
    lua_tolstring(L: LuaState, idx: number): LuaString | null;
    lua_tostring(L: LuaState, idx: number): LuaString | null;
    lua_touserdata(L: LuaState, idx: number): unknown;
    lua_topointer(L: LuaState, idx: number): unknown;
    lua_getmetatable(L: LuaState, idx: number): boolean;
    lua_setmetatable(L: LuaState, idx: number): void;
    lua_setupvalue(L: LuaState, funcindex: number, n: number): LuaString | null;
  }

  export interface LauxLib {
    luaL_newstate(): LuaState;
    luaL_loadbufferx(L: LuaState, buff: LuaString, size: number, name: LuaString | string, mode: LuaString | string | null): number;
    luaL_error(L: LuaState, fmt: LuaString | string, ...args: unknown[]): never;
    luaL_argerror(L: LuaState, arg: number, extramsg: LuaString | string): never;
    luaL_checklstring(L: LuaState, arg: number): LuaString;
    luaL_checkstring(L: LuaState, arg: number): LuaString;
    luaL_optlstring(L: LuaState, arg: number, def: LuaString | string | null): LuaString | null;
    luaL_checkinteger(L: LuaState, arg: number): number;
    luaL_optinteger(L: LuaState, arg: number, def: number): number;
    luaL_checktype(L: LuaState, arg: number, t: number): void;
    luaL_checkany(L: LuaState, arg: number): void;
    luaL_checkstack(L: LuaState, space: number, msg: string | null): void;
    luaL_tolstring(L: LuaState, idx: number): LuaString;
    luaL_typename(L: LuaState, idx: number): LuaString;
    luaL_len(L: LuaState, idx: number): number;
    luaL_ref(L: LuaState, t: number): number;
    luaL_requiref(L: LuaState, modname: LuaString | string, openf: LuaCFunction, glb: number): void;
  }

  export interface LuaLib {
    luaopen_base: LuaCFunction;
    luaopen_string: LuaCFunction;
    luaopen_table: LuaCFunction;
    luaopen_math: LuaCFunction;
    /** Opens every standard library, io and os included: for tests only, never in a sandbox. */
    luaL_openlibs(L: LuaState): void;
  }

  const fengari: {
    lua: Lua;
    lauxlib: LauxLib;
    lualib: LuaLib;
    to_luastring(s: string, cache?: boolean): LuaString;
    to_jsstring(s: LuaString, from?: number, to?: number, replacementChar?: boolean): string;
  };
  export default fengari;
}
