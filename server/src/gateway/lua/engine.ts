// The Lua lambda engine (issue 3 item 6; the svc surface it serves: docs/lambda.md). Public API, stable:
//
//   compileLambda(source, name, limits?) → { ok: true, lambda } | { ok: false, error }
//     Compile once per rule version (when the config changes). `name` labels error messages (sanitised).
//     `limits` overrides DEFAULT_LIMITS (instructions, wallMs, maxStringBytes, maxAllocBytes, maxStackSlots).
//     Never throws on bad source.
//   lambda.run(input: LambdaInput, request?: RequestBudget): LambdaOutcome      (synchronous, never throws)
//     { kind: 'continue', responseBody? } | { kind: 'exit', status, body, headers } | { kind: 'error', message }
//     `request` is shared by the lambda calls of one request (budget.ts); a spent one fails the call without running it.
//   checkLambdaSource(source) → string | null                (syntax/static check only; used by the rule schema)
//
// One Lua state per compiled lambda, reused by every call. What persists between calls: only the compiled chunk
// and the read-only svc library. Each call runs the chunk with a fresh _ENV table ({ svc, setmetatable }), so
// globals a lambda writes die with the call; the shared tables cannot be written (see sandbox.ts), so nothing one
// caller does is visible to the next. Runs are not re-entrant (a nested run on the same lambda returns an error).
// The surface a lambda sees is documented in docs/lambda.md.
import { Budget, DEFAULT_LIMITS, type LambdaLimits, type RequestBudget } from './budget.ts';
import { loadChunk } from './compile.ts';
import { createArrayMarker } from './json.ts';
import { createSandbox, pushEnv, type Sandbox } from './sandbox.ts';
import { EXIT_SIGNAL, fillSvc, newCall, type CallSlot, type CallState } from './svc.ts';
import type { LambdaInput, LambdaOutcome } from './types.ts';
import { lauxlib, lua, text, type LuaState } from './vm.ts';

export { checkLambdaSource } from './compile.ts';
export { DEFAULT_LIMITS, DEFAULT_REQUEST_LIMITS, RequestBudget, type LambdaLimits, type RequestLambdaLimits } from './budget.ts';
export type { LambdaContext, LambdaInput, LambdaLogLevel, LambdaOutcome, LambdaPhase } from './types.ts';

export const MAX_ERROR_MESSAGE = 512;

export interface CompiledLambda {
  readonly name: string;
  run(input: LambdaInput, request?: RequestBudget): LambdaOutcome;
}

export type CompileResult = { ok: true; lambda: CompiledLambda } | { ok: false; error: string };

/** Keeps chunk names short and printable: they prefix every runtime error message. */
function chunkName(name: string): string {
  const clean = name.replace(/[^\w.-]+/g, '_').slice(0, 40);
  return clean || 'lambda';
}

function errorMessage(raw: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = raw.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return flat.length > MAX_ERROR_MESSAGE ? `${flat.slice(0, MAX_ERROR_MESSAGE)}…` : flat;
}

interface LambdaParts { name: string; sandbox: Sandbox; budget: Budget; slot: CallSlot; chunkRef: number }

class Lambda implements CompiledLambda {
  readonly name: string;
  private readonly sandbox: Sandbox;
  private readonly budget: Budget;
  private readonly slot: CallSlot;
  private readonly chunkRef: number;

  constructor(parts: LambdaParts) {
    ({ name: this.name, sandbox: this.sandbox, budget: this.budget, slot: this.slot, chunkRef: this.chunkRef } = parts);
  }

  run(input: LambdaInput, request?: RequestBudget): LambdaOutcome {
    if (this.slot.current !== null) return { kind: 'error', message: 'lambda is already running' };
    const spent = request?.spent();
    if (spent) return { kind: 'error', message: spent };
    const { L } = this.sandbox;
    const call = newCall(input);
    this.slot.current = call;
    try {
      lua.lua_settop(L, 0);
      lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, this.chunkRef);
      pushEnv(this.sandbox);
      lua.lua_setupvalue(L, 1, 1); // the chunk's only upvalue is _ENV
      // The bodies' UTF-8 size without measuring them: at most 3 bytes per UTF-16 code unit.
      this.budget.start(L, 3 * (input.request.body.length + (input.response?.body.length ?? 0)), request);
      const status = lua.lua_pcall(L, 0, 0, 0);
      this.budget.stop();
      return this.outcome(L, status, call);
    } catch (err) {
      // fengari turns every error inside the call into a status; reaching here is a bug in the engine.
      return { kind: 'error', message: `internal error in the lambda engine (${err instanceof Error ? err.name : 'unknown'})` };
    } finally {
      this.budget.stop();
      lua.lua_settop(L, 0);
      this.slot.current = null;
    }
  }

  private outcome(L: LuaState, status: number, call: CallState): LambdaOutcome {
    if (this.budget.failure !== null) return { kind: 'error', message: this.budget.failure };
    if (call.exit !== null) return { kind: 'exit', ...call.exit };
    if (status !== lua.LUA_OK) return { kind: 'error', message: errorMessage(this.errorText(L)) };
    return call.newBody === null ? { kind: 'continue' } : { kind: 'continue', responseBody: text(call.newBody) };
  }

  private errorText(L: LuaState): string {
    if (lua.lua_touserdata(L, -1) === EXIT_SIGNAL) return 'svc.response.exit signal without an exit'; // unreachable
    if (lua.lua_type(L, -1) === lua.LUA_TSTRING) return text(lua.lua_tolstring(L, -1) as Uint8Array);
    return `(error object is a ${text(lauxlib.luaL_typename(L, -1))} value)`;
  }
}

/** Compiles a lambda into its own sandboxed Lua state. */
export function compileLambda(source: string, name: string, limits: Partial<LambdaLimits> = {}): CompileResult {
  const budget = new Budget({ ...DEFAULT_LIMITS, ...limits });
  const slot: CallSlot = { current: null };
  let arrayMtRef = 0;
  const sandbox = createSandbox(budget, (L) => {
    arrayMtRef = createArrayMarker(L);
    fillSvc(L, slot, budget, arrayMtRef);
  });
  const chunk = chunkName(name);
  const error = loadChunk(sandbox.L, source, chunk);
  if (error !== null) return { ok: false, error };
  const chunkRef = lauxlib.luaL_ref(sandbox.L, lua.LUA_REGISTRYINDEX);
  return { ok: true, lambda: new Lambda({ name: chunk, sandbox, budget, slot, chunkRef }) };
}
