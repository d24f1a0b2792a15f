// The fengari VM as the lambda engine uses it, plus the byte/text conversions at the Lua boundary.
// Lua strings are bytes; the gateway speaks JS strings. We encode as UTF-8 and decode with replacement characters,
// so a lambda that produces invalid UTF-8 yields U+FFFD rather than an exception.
import { createRequire } from 'node:module';
import fengari from 'fengari';
import type { LuaState, LuaString } from 'fengari';

export const { lua, lauxlib, lualib } = fengari;
export type { LuaState, LuaString };

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

/** JS string → Lua bytes (UTF-8). */
export function bytes(s: string): LuaString {
  return encoder.encode(s);
}

/** Lua bytes → JS string (invalid UTF-8 becomes U+FFFD). */
export function text(b: LuaString): string {
  return decoder.decode(b);
}

// lua_pushstring copies its bytes with Uint8Array.from, which costs about a millisecond per megabyte. For bytes we
// own and never modify afterwards (Lua strings are immutable) we build the Lua string around them instead, through
// the same two internal functions lua_pushstring uses (so the string guard in budget.ts still sees it).
const require = createRequire(import.meta.url);
const lstring = require('fengari/src/lstring.js') as { luaS_bless?: (L: LuaState, s: Uint8Array) => unknown };
const lobject = require('fengari/src/lobject.js') as { pushsvalue2s?: (L: LuaState, ts: unknown) => void };
if (typeof lstring.luaS_bless !== 'function' || typeof lobject.pushsvalue2s !== 'function') {
  throw new Error('fengari internals changed: luaS_bless/pushsvalue2s not found');
}
const bless = lstring.luaS_bless;

/** Pushes bytes as a Lua string without copying; the caller must never modify them afterwards. */
export function pushOwned(L: LuaState, b: Uint8Array): void {
  const plain = b.constructor === Uint8Array ? b : new Uint8Array(b.buffer, b.byteOffset, b.length);
  (lobject.pushsvalue2s as (L: LuaState, ts: unknown) => void)(L, bless(L, plain));
}

/** Pushes a JS string as a Lua string. */
export function pushText(L: LuaState, s: string): void {
  pushOwned(L, encoder.encode(s));
}

/** The value at idx as a JS string when it is a Lua string (numbers are not converted); null otherwise. */
export function textAt(L: LuaState, idx: number): string | null {
  if (lua.lua_type(L, idx) !== lua.LUA_TSTRING) return null;
  const b = lua.lua_tolstring(L, idx);
  return b === null ? null : decoder.decode(b);
}

/**
 * Raises a Lua error carrying `message` verbatim, prefixed with the caller's position like luaL_error does.
 * Passing the message as a %s argument keeps any '%' in it literal.
 */
export function raise(L: LuaState, message: string): never {
  return lauxlib.luaL_error(L, fengari.to_luastring('%s'), encoder.encode(message));
}
