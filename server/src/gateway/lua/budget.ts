// Per-call resource budget of a lambda: VM instructions (plus work that library functions charge for), wall-clock
// time and the size of any string the lambda creates. Exceeding any of them raises a Lua error and marks the call
// failed for good, so even code that somehow caught the error could not continue past it (the run reports the
// failure whatever the lambda returns).
//
// A request may run many lambdas (every access lambda of the proxy, and a response lambda per JSON-RPC answer of a
// batch), so the calls of one request also draw on a RequestBudget: instructions and time summed over its calls. A
// call gets the smaller of its own limits and what the request has left, and fails the same way when it runs out.
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

/** What all lambda calls of one request may use together; each call is held to its own LambdaLimits as well. */
export interface RequestLambdaLimits {
  /** Instructions summed over the request's calls. */
  instructions: number;
  /** Milliseconds spent inside the request's calls, summed (time between calls does not count). */
  wallMs: number;
}

/** Four calls' worth of the per-call budget: plenty for a proxy's lambdas, far below 20 lambdas at their limit. */
export const DEFAULT_REQUEST_LIMITS: RequestLambdaLimits = { instructions: 8_000_000, wallMs: 200 };

/** The lambda work one request has done so far. Calls are synchronous, so the calls of a request never overlap. */
export class RequestBudget {
  instructions = 0;
  ms = 0;

  constructor(readonly limits: RequestLambdaLimits = DEFAULT_REQUEST_LIMITS) {}

  instructionsLeft(): number {
    return this.limits.instructions - this.instructions;
  }

  msLeft(): number {
    return this.limits.wallMs - this.ms;
  }

  /** Why no further call of this request may start, or null while something is left. */
  spent(): string | null {
    if (this.instructionsLeft() <= 0) return requestInstructionsMessage(this.limits);
    if (this.msLeft() <= 0) return requestTimeMessage(this.limits);
    return null;
  }
}

const requestInstructionsMessage = (l: RequestLambdaLimits) =>
  `lambda exceeded the request's lambda budget (${l.instructions} instructions for all lambdas of one request)`;
const requestTimeMessage = (l: RequestLambdaLimits) =>
  `lambda exceeded the request's lambda budget (${l.wallMs} ms for all lambdas of one request)`;

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
  private startedAt = 0;
  /** This call's instruction cap and the message for crossing it: its own limit, or what its request has left. */
  private maxInstructions = 0;
  private instructionsMessage = '';
  private timeMessage = '';
  private request: RequestBudget | null = null;
  private outer: Budget | null = null;
  private state: LuaState | null = null;
  private readonly ownInstructionsMessage: string;
  private readonly ownTimeMessage: string;

  constructor(readonly limits: LambdaLimits) {
    this.ownInstructionsMessage = `lambda exceeded its instruction budget (${limits.instructions})`;
    this.ownTimeMessage = `lambda exceeded its time budget (${limits.wallMs} ms)`;
  }

  /**
   * Starts a call; `givenBytes` is the size of the bodies handed to the lambda, `request` the budget the calls of its
   * request share (none: only this call's limits). Makes this budget the active one.
   */
  start(L: LuaState, givenBytes: number, request?: RequestBudget): void {
    this.used = 0;
    this.allocated = 0;
    this.failure = null;
    this.maxString = Math.max(this.limits.maxStringBytes, 2 * givenBytes);
    this.maxAlloc = Math.max(this.limits.maxAllocBytes, 8 * givenBytes);
    this.startedAt = performance.now();
    this.capBy(request);
    lua.lua_sethook(L, this.hook, lua.LUA_MASKCOUNT, HOOK_EVERY);
    this.state = L;
    this.outer = guard.active; // another lambda's call, if the gateway ran this one from inside it
    guard.active = this;
  }

  /** The smaller of this call's limits and what its request has left, each with the message that names it. */
  private capBy(request: RequestBudget | undefined): void {
    const { instructions, wallMs } = this.limits;
    this.request = request ?? null;
    this.maxInstructions = instructions;
    this.instructionsMessage = this.ownInstructionsMessage;
    this.deadline = this.startedAt + wallMs;
    this.timeMessage = this.ownTimeMessage;
    if (!request) return;
    if (request.instructionsLeft() < instructions) {
      this.maxInstructions = request.instructionsLeft();
      this.instructionsMessage = requestInstructionsMessage(request.limits);
    }
    if (request.msLeft() < wallMs) {
      this.deadline = this.startedAt + request.msLeft();
      this.timeMessage = requestTimeMessage(request.limits);
    }
  }

  /** Ends a call (idempotent): what it used counts against its request; the string guard goes back to the enclosing call. */
  stop(): void {
    if (this.request) {
      this.request.instructions += this.used;
      this.request.ms += performance.now() - this.startedAt;
      this.request = null;
    }
    if (guard.active !== this) return;
    guard.active = this.outer;
    this.outer = null;
  }

  /** Adds `units` of work (1 unit ≈ one VM instruction) and fails the call when a limit is crossed. */
  charge(L: LuaState, units: number): void {
    this.used += units;
    if (this.failure !== null) raise(L, this.failure);
    if (this.used > this.maxInstructions) this.fail(L, this.instructionsMessage);
    if (performance.now() > this.deadline) this.failTime(L);
  }

  private failTime(L: LuaState): never {
    return this.fail(L, this.timeMessage);
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
