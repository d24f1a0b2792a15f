// The per-request members of `svc` (log, context, request, response, json). They read the call in progress from a
// slot the engine fills for the duration of one synchronous run; the svc tables themselves are shared, read-only.
import type { LuaCFunction } from 'fengari';
import type { Budget } from './budget.ts';
import { COOKIE_SETTING_HEADERS } from '../upstream/headers.ts';
import { encodeAt, jsonFunctions, pushJsonNull } from './json.ts';
import { makeReadOnly, setFunctions } from './sandbox.ts';
import type { LambdaInput, LambdaLogLevel } from './types.ts';
import { bytes, lauxlib, lua, pushOwned, pushText, raise, text, textAt, type LuaState } from './vm.ts';

export const MAX_LOG_LINES = 50;
export const MAX_LOG_BYTES = 2048;
export const MAX_EXIT_HEADERS = 32;
const CONTEXT_FIELDS = new Set(['tool_name', 'method', 'proxy_id', 'credential_id', 'client_ip', 'model']);
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,256}$/;
const HEADER_VALUE = /^[^\r\n\0]{0,8192}$/;
const RESERVED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer']);

/** Raised (as a Lua error value) by svc.response.exit to unwind the lambda at once. */
export const EXIT_SIGNAL = Object.freeze({ signal: 'svc.response.exit' });

export interface ExitDecision { status: number; body: string; headers: Record<string, string> }

export interface CallState {
  readonly input: LambdaInput;
  requestBody: Uint8Array | null;
  responseBody: Uint8Array | null;
  /** Set by svc.response.set_body. */
  newBody: Uint8Array | null;
  exit: ExitDecision | null;
  logLines: number;
}

export interface CallSlot { current: CallState | null }

export function newCall(input: LambdaInput): CallState {
  return { input, requestBody: null, responseBody: null, newBody: null, exit: null, logLines: 0 };
}

function current(slot: CallSlot, L: LuaState): CallState {
  if (slot.current === null) return raise(L, 'svc is only available while the lambda runs');
  return slot.current;
}

function joinArgs(L: LuaState): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 1; i <= lua.lua_gettop(L) && size < MAX_LOG_BYTES; i++) {
    const b = lauxlib.luaL_tolstring(L, i);
    lua.lua_pop(L, 1);
    parts.push(text(b.length > MAX_LOG_BYTES ? b.subarray(0, MAX_LOG_BYTES) : b));
    size += b.length + 1;
  }
  const msg = parts.join(' ');
  return msg.length > MAX_LOG_BYTES ? `${msg.slice(0, MAX_LOG_BYTES)}…` : msg;
}

function logFunctions(slot: CallSlot): Record<LambdaLogLevel, LuaCFunction> {
  const make = (level: LambdaLogLevel): LuaCFunction => (L) => {
    const call = current(slot, L);
    if (call.logLines > MAX_LOG_LINES) return 0;
    call.logLines++;
    const message = call.logLines > MAX_LOG_LINES ? `further log lines dropped (limit ${MAX_LOG_LINES} per call)` : joinArgs(L);
    try { call.input.log(call.logLines > MAX_LOG_LINES ? 'warn' : level, message); } catch { /* a logger must not fail the lambda */ }
    return 0;
  };
  return { info: make('info'), warn: make('warn'), err: make('err') };
}

function headerValue(headers: LambdaInput['request']['headers'], name: string): string | undefined {
  const lower = name.toLowerCase();
  // Own keys only: get_header('constructor') or ('__proto__') must not find Object.prototype's members.
  let v = Object.hasOwn(headers, lower) ? headers[lower] : undefined;
  if (v === undefined) {
    for (const k of Object.keys(headers)) if (k.toLowerCase() === lower) { v = headers[k]; break; }
  }
  return Array.isArray(v) ? v.join(', ') : v;
}

function requestFunctions(slot: CallSlot): Record<string, LuaCFunction> {
  return {
    get_header: (L) => {
      const name = text(lauxlib.luaL_checkstring(L, 1));
      const v = headerValue(current(slot, L).input.request.headers, name);
      if (v === undefined) lua.lua_pushnil(L);
      else pushText(L, v);
      return 1;
    },
    get_headers: (L) => {
      const headers = current(slot, L).input.request.headers;
      lua.lua_createtable(L, 0, 16);
      for (const k of Object.keys(headers)) {
        const v = headerValue(headers, k);
        if (v === undefined) continue;
        pushText(L, v);
        lua.lua_setfield(L, -2, bytes(k.toLowerCase()));
      }
      return 1;
    },
    get_body: (L) => {
      const call = current(slot, L);
      call.requestBody ??= bytes(call.input.request.body);
      pushOwned(L, call.requestBody);
      return 1;
    },
  };
}

function responsePhase(slot: CallSlot, L: LuaState, fn: string): CallState & { input: Required<Pick<LambdaInput, 'response'>> } {
  const call = current(slot, L);
  if (call.input.phase !== 'response') raise(L, `svc.response.${fn} is only available in the response phase`);
  if (call.input.response === undefined) raise(L, `svc.response.${fn}: no upstream response`);
  return call as CallState & { input: Required<Pick<LambdaInput, 'response'>> };
}

interface JsonEncoding { budget: Budget; arrayMtRef: number }

/** A body argument: a string, or a table encoded as JSON. Returns the body and whether it was JSON-encoded. */
function bodyArg(L: LuaState, enc: JsonEncoding, idx: number, fn: string): { body: Uint8Array; json: boolean } {
  const t = lua.lua_type(L, idx);
  if (t === lua.LUA_TSTRING) return { body: (lua.lua_tolstring(L, idx) as Uint8Array), json: false };
  if (t === lua.LUA_TNIL || t === lua.LUA_TNONE) return { body: new Uint8Array(0), json: false };
  if (t === lua.LUA_TTABLE) return { body: bytes(encodeAt(L, enc.budget, enc.arrayMtRef, idx)), json: true };
  return raise(L, `${fn}: body must be a string or a table (encoded as JSON)`);
}

/** The header under the table key at -2 and the value at -1 (popped): its lower-case name and value, or a Lua error. */
function exitHeader(L: LuaState): [string, string] {
  const name = textAt(L, -2);
  const value = lua.lua_type(L, -1) === lua.LUA_TNUMBER ? String(lua.lua_tonumber(L, -1)) : textAt(L, -1);
  lua.lua_pop(L, 1);
  if (name === null || !HEADER_NAME.test(name)) raise(L, 'svc.response.exit: invalid header name');
  if (value === null || !HEADER_VALUE.test(value)) raise(L, `svc.response.exit: invalid value for header ${name}`);
  const lower = name.toLowerCase();
  if (RESERVED_HEADERS.has(lower)) raise(L, `svc.response.exit: header ${lower} is set by the gateway`);
  return [lower, value];
}

function exitHeaders(L: LuaState, idx: number): Record<string, string> {
  const out: Record<string, string> = {};
  const t = lua.lua_type(L, idx);
  if (t === lua.LUA_TNIL || t === lua.LUA_TNONE) return out;
  if (t !== lua.LUA_TTABLE) raise(L, 'svc.response.exit: headers must be a table of strings');
  let count = 0;
  lua.lua_pushnil(L);
  while (lua.lua_next(L, idx)) {
    const [name, value] = exitHeader(L);
    // Dropped rather than refused: the answer a lambda meant still goes out, only without the cookie it must not set.
    if (COOKIE_SETTING_HEADERS.has(name)) continue;
    if (++count > MAX_EXIT_HEADERS) raise(L, `svc.response.exit: at most ${MAX_EXIT_HEADERS} headers`);
    out[name] = value;
  }
  return out;
}

function responseFunctions(slot: CallSlot, enc: JsonEncoding): Record<string, LuaCFunction> {
  return {
    exit: (L) => {
      const call = current(slot, L);
      const status = lauxlib.luaL_checkinteger(L, 1);
      if (status < 200 || status > 599) raise(L, 'svc.response.exit: status must be an integer from 200 to 599');
      const { body, json } = bodyArg(L, enc, 2, 'svc.response.exit');
      const headers = exitHeaders(L, 3);
      if (json && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
      call.exit = { status, body: text(body), headers };
      lua.lua_pushlightuserdata(L, EXIT_SIGNAL);
      return lua.lua_error(L);
    },
    get_status: (L) => {
      lua.lua_pushinteger(L, responsePhase(slot, L, 'get_status').input.response.status);
      return 1;
    },
    get_body: (L) => {
      const call = responsePhase(slot, L, 'get_body');
      call.responseBody ??= bytes(call.input.response.body);
      pushOwned(L, call.newBody ?? call.responseBody);
      return 1;
    },
    set_body: (L) => {
      const call = responsePhase(slot, L, 'set_body');
      if (lua.lua_type(L, 1) <= 0) raise(L, 'svc.response.set_body: body must be a string or a table (encoded as JSON)');
      call.newBody = bodyArg(L, enc, 1, 'svc.response.set_body').body;
      return 0;
    },
  };
}

/** Pushes a read-only table of functions. */
function pushFunctions(L: LuaState, name: string, fns: Record<string, LuaCFunction>): void {
  lua.lua_createtable(L, 0, Object.keys(fns).length);
  setFunctions(L, fns);
  makeReadOnly(L, name);
}

/** Adds log, context, request, response and json to the svc table at the top of the stack. */
export function fillSvc(L: LuaState, slot: CallSlot, budget: Budget, arrayMtRef: number): void {
  pushFunctions(L, 'svc.log', logFunctions(slot));
  lua.lua_setfield(L, -2, 'log');

  lua.lua_createtable(L, 0, 0);
  makeReadOnly(L, 'svc.context', (L2) => {
    const key = textAt(L2, 2);
    const value = key !== null && CONTEXT_FIELDS.has(key)
      ? current(slot, L2).input.context[key as keyof LambdaInput['context']] : undefined;
    if (typeof value === 'string') pushText(L2, value);
    else lua.lua_pushnil(L2);
    return 1;
  });
  lua.lua_setfield(L, -2, 'context');

  pushFunctions(L, 'svc.request', requestFunctions(slot));
  lua.lua_setfield(L, -2, 'request');
  pushFunctions(L, 'svc.response', responseFunctions(slot, { budget, arrayMtRef }));
  lua.lua_setfield(L, -2, 'response');

  lua.lua_createtable(L, 0, 4);
  setFunctions(L, jsonFunctions(budget, arrayMtRef));
  pushJsonNull(L);
  lua.lua_setfield(L, -2, 'null');
  makeReadOnly(L, 'svc.json');
  lua.lua_setfield(L, -2, 'json');
}
