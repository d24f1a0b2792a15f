// Turning lambda source into a Lua function: text chunks only (no precompiled bytecode), syntax errors reported
// with their line, and one static rule on the bytecode: a single `..` expression may join at most
// MAX_CONCAT_OPERANDS values. The VM builds a concatenation in one step, before the string-size guard can look at
// it, so this bounds the memory one step can take to MAX_CONCAT_OPERANDS × the string limit.
import { createRequire } from 'node:module';
import { bytes, lauxlib, lua, text, type LuaState } from './vm.ts';

export const MAX_SOURCE_BYTES = 256 * 1024;
export const MAX_CONCAT_OPERANDS = 16;

const require = createRequire(import.meta.url);
const OP_CONCAT: unknown = (require('fengari/src/lopcodes.js') as { OpCodesI?: { OP_CONCAT?: unknown } }).OpCodesI?.OP_CONCAT;
if (typeof OP_CONCAT !== 'number') throw new Error('fengari internals changed: OP_CONCAT not found');

interface Instruction { opcode: number; B: number; C: number }
interface Proto { code: Instruction[]; p: Proto[]; lineinfo: number[] }

function isProto(v: unknown): v is Proto {
  const p = v as Partial<Proto> | null;
  return typeof p === 'object' && p !== null && Array.isArray(p.code) && Array.isArray(p.p) && Array.isArray(p.lineinfo);
}

/** Returns the line of the first over-long concatenation in the proto tree, or 0. */
function longConcatLine(proto: Proto): number {
  for (let i = 0; i < proto.code.length; i++) {
    const ins = proto.code[i] as Instruction;
    if (ins.opcode === OP_CONCAT && ins.C - ins.B + 1 > MAX_CONCAT_OPERANDS) return proto.lineinfo[i] ?? 1;
  }
  for (const child of proto.p) {
    const line = longConcatLine(child);
    if (line) return line;
  }
  return 0;
}

/** "name:3: msg" (Lua's format for chunk "=name") → "line 3: msg". */
function tidy(message: string, chunk: string): string {
  const prefix = `${chunk}:`;
  const m = message.startsWith(prefix) ? /^(\d+): ([\s\S]*)$/.exec(message.slice(prefix.length)) : null;
  return m ? `line ${m[1]}: ${m[2]}` : message;
}

/**
 * Loads `source` as a text chunk named `chunk` onto L's stack. Returns null on success (the function is at the
 * top), or a reason fit for a 400 message / a log line.
 */
export function loadChunk(L: LuaState, source: string, chunk: string): string | null {
  const code = bytes(source);
  if (code.length > MAX_SOURCE_BYTES) return `Lua source is larger than ${MAX_SOURCE_BYTES} bytes`;
  const status = lauxlib.luaL_loadbufferx(L, code, code.length, `=${chunk}`, 't');
  if (status !== lua.LUA_OK) {
    const msg = lua.lua_tolstring(L, -1);
    lua.lua_pop(L, 1);
    return tidy(msg ? text(msg) : "syntax error", chunk);
  }
  const closure = lua.lua_topointer(L, -1) as { p?: unknown } | null;
  const proto = closure?.p;
  if (!isProto(proto)) {
    lua.lua_pop(L, 1);
    return 'internal error: unexpected Lua function layout';
  }
  const line = longConcatLine(proto);
  if (line) {
    lua.lua_pop(L, 1);
    return `line ${line}: a single expression concatenates more than ${MAX_CONCAT_OPERANDS} values; use svc.table.concat`;
  }
  return null;
}

/** Validates lambda source without building a sandbox (used by the rule schema at PUT time). */
export function checkLambdaSource(source: string): string | null {
  const L = lauxlib.luaL_newstate();
  return loadChunk(L, source, 'lua_code');
}
