// Per-call resource budget of a lambda: VM instructions (plus work that library functions charge for), wall-clock
// time and the size of any string the lambda creates. Exceeding any of them raises a Lua error and marks the call
// failed for good, so even code that somehow caught the error could not continue past it (the run reports the
// failure whatever the lambda returns).
//
// String sizes: fengari has no allocator hook, and the `..` operator builds its result inside the VM. The VM stores
// that result through `lobject.setsvalue2s`, and every string pushed through the C API (library results) goes
// through `lobject.pushsvalue2s`; both are called through the module object, so we wrap them once at load time. The
// wrappers act only while a budget is active (a lambda call is running, synchronously) and otherwise behave exactly
// like the originals. fengari is pinned to 0.1.x; the limits tests fail if a future version changes this path.
import { createRequire } from 'node:module';
import { lua, raise, type LuaState } from './vm.ts';

export interface LambdaLimits {
  /** VM instructions per call (library work is charged in the same unit). */
  instructions: number;
  /** Wall-clock milliseconds per call. */
  wallMs: number;
  /** Largest string a lambda may create; raised per call to twice the size of the bodies it was given. */
  maxStringBytes: number;
  /** Total bytes of all strings created in one call (bounds what a call can hold); raised to 8× the bodies. */
  maxAllocBytes: number;
  /** Lua stack slots (bounds recursion depth and its memory). */
  maxStackSlots: number;
}

export const DEFAULT_LIMITS: LambdaLimits = {
  instructions: 2_000_000, wallMs: 50, maxStringBytes: 4 * 1024 * 1024, maxAllocBytes: 64 * 1024 * 1024, maxStackSlots: 100_000,
};

/**
 * How often the count hook fires, in instructions. Some single instructions do work that grows with string size
 * (comparing two long strings, indexing by a long key) and are charged as one: the clock is looked at often enough
 * that a loop of them overruns the wall-clock budget by a bounded amount.
 */
export const HOOK_EVERY = 100;

export class Budget {
  used = 0;
  maxString = 0;
  allocated = 0;
  maxAlloc = 0;
  failure: string | null = null;
  private deadline = 0;
  private outer: Budget | null = null;
  private state: LuaState | null = null;

  constructor(readonly limits: LambdaLimits) {}

  /** Starts a call; `givenBytes` is the size of the bodies handed to the lambda. Makes this budget the active one. */
  start(L: LuaState, givenBytes: number): void {
    this.used = 0;
    this.allocated = 0;
    this.failure = null;
    this.maxString = Math.max(this.limits.maxStringBytes, 2 * givenBytes);
    this.maxAlloc = Math.max(this.limits.maxAllocBytes, 8 * givenBytes);
    this.deadline = performance.now() + this.limits.wallMs;
    lua.lua_sethook(L, this.hook, lua.LUA_MASKCOUNT, HOOK_EVERY);
    this.state = L;
    this.outer = guard.active; // another lambda's call, if the gateway ran this one from inside it
    guard.active = this;
  }

  /** Ends a call; the string guard goes back to the enclosing call, if any. */
  stop(): void {
    if (guard.active !== this) return;
    guard.active = this.outer;
    this.outer = null;
  }

  /** Adds `units` of work (1 unit ≈ one VM instruction) and fails the call when a limit is crossed. */
  charge(L: LuaState, units: number): void {
    this.used += units;
    if (this.failure !== null) raise(L, this.failure);
    if (this.used > this.limits.instructions) this.fail(L, `lambda exceeded its instruction budget (${this.limits.instructions})`);
    if (performance.now() > this.deadline) this.failTime(L);
  }

  private failTime(L: LuaState): never {
    return this.fail(L, `lambda exceeded its time budget (${this.limits.wallMs} ms)`);
  }

  /** Fails the call unless a string of `length` bytes may be created. */
  checkString(L: LuaState, length: number): void {
    if (length > this.maxString) this.fail(L, `lambda exceeded its memory budget (string of ${length} bytes; limit ${this.maxString})`);
  }

  /** Accounts for a string the VM just created (quiet once the call failed: the error message is a string too). */
  noteString(L: LuaState, length: number): void {
    if (this.failure !== null || L !== this.state) return; // another Lua state is not this call's business
    this.allocated += length;
    this.checkString(L, length);
    if (this.allocated > this.maxAlloc) {
      this.fail(L, `lambda exceeded its memory budget (${this.allocated} bytes of strings created; limit ${this.maxAlloc})`);
    }
    // Building a big string is one VM instruction but real time: look at the clock between hook calls too.
    if (length >= 4096 && performance.now() > this.deadline) this.failTime(L);
  }

  fail(L: LuaState, message: string): never {
    this.failure ??= message;
    return raise(L, this.failure);
  }

  private readonly hook = (L: LuaState): void => {
    if (stackTop(L) > this.limits.maxStackSlots) this.fail(L, 'lambda exceeded its stack budget (recursion too deep)');
    this.charge(L, HOOK_EVERY);
  };
}

/** The budget of the call in progress (calls are synchronous, so there is at most one). */
const guard: { active: Budget | null } = { active: null };

/** Slots in use on L's stack (fengari keeps the stack as a JS array indexed up to L.top). */
function stackTop(L: LuaState): number {
  return (L as unknown as { top: number }).top;
}

interface TStringLike { realstring: Uint8Array }
interface LobjectModule {
  setsvalue2s(L: LuaState, idx: number, ts: TStringLike): void;
  pushsvalue2s(L: LuaState, ts: TStringLike): void;
}

function installStringGuard(): void {
  const require = createRequire(import.meta.url);
  const lobject = require('fengari/src/lobject.js') as LobjectModule;
  const { setsvalue2s, pushsvalue2s } = lobject;
  if (typeof setsvalue2s !== 'function' || typeof pushsvalue2s !== 'function') {
    throw new Error('fengari internals changed: the Lua string guard cannot be installed');
  }
  lobject.setsvalue2s = (L, idx, ts) => {
    guard.active?.noteString(L, ts.realstring.length);
    setsvalue2s(L, idx, ts);
  };
  lobject.pushsvalue2s = (L, ts) => {
    guard.active?.noteString(L, ts.realstring.length);
    pushsvalue2s(L, ts);
  };
}

installStringGuard();
