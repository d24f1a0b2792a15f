// Lua pattern matching (string.find, match, gmatch, gsub) with a work budget.
//
// Why a port: Lua patterns backtrack, so a pattern like ".-.-.-x" against a large body takes polynomial time inside
// one library call, where the VM's instruction hook never fires; the body may come from an attacker while the
// pattern comes from the tenant. This is a transcription of fengari 0.1.5's lstrlib.js (MIT, © 2017-2019 Benoit
// Giannangeli, Daurnimator; © 1994–2017 Lua.org, PUC-Rio) with the same semantics and error messages, plus:
// every matching step is charged to the call's Budget, and gsub checks the size of its result as it grows.
import type { LuaCFunction } from 'fengari';
import type { Budget } from './budget.ts';
import { lauxlib, lua, pushOwned, raise, type LuaState, type LuaString } from './vm.ts';

const L_ESC = 37; // '%'
const CAP_UNFINISHED = -1;
const CAP_POSITION = -2;
const MAXCCALLS = 200;
const MAXCAPTURES = 32;
const SPECIALS = new Set(Array.from('^$*+?.([%-', (c) => c.charCodeAt(0)));
const STEP_BATCH = 256;

interface Capture { init: number; len: number }

class MatchState {
  matchdepth = MAXCCALLS;
  level = 0;
  readonly capture: Capture[] = [];
  private steps = 0;

  constructor(public L: LuaState, readonly budget: Budget, readonly src: LuaString, readonly p: LuaString) {}

  get srcEnd(): number { return this.src.length; }
  get pEnd(): number { return this.p.length; }

  step(n = 1): void {
    this.steps += n;
    if (this.steps >= STEP_BATCH) {
      this.budget.charge(this.L, this.steps);
      this.steps = 0;
    }
  }

  reprep(): void { this.level = 0; }
}

const isalpha = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isdigit = (c: number): boolean => c >= 48 && c <= 57;
const islower = (c: number): boolean => c >= 97 && c <= 122;
const isupper = (c: number): boolean => c >= 65 && c <= 90;
const isspace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);
const iscntrl = (c: number): boolean => c < 32 || c === 127;
const isgraph = (c: number): boolean => c > 32 && c < 127;
const isalnum = (c: number): boolean => isalpha(c) || isdigit(c);
const ispunct = (c: number): boolean => isgraph(c) && !isalnum(c);
const isxdigit = (c: number): boolean => isdigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);

function classTest(c: number, lower: number): boolean | null {
  switch (lower) {
    case 97: return isalpha(c);
    case 99: return iscntrl(c);
    case 100: return isdigit(c);
    case 103: return isgraph(c);
    case 108: return islower(c);
    case 112: return ispunct(c);
    case 115: return isspace(c);
    case 117: return isupper(c);
    case 119: return isalnum(c);
    case 120: return isxdigit(c);
    case 122: return c === 0; // %z, deprecated
    default: return null;
  }
}

function matchClass(c: number, cl: number): boolean {
  const lower = cl | 0x20;
  const r = isalpha(cl) ? classTest(c, lower) : null;
  if (r === null) return cl === c;
  return cl === lower ? r : !r;
}

function checkCapture(ms: MatchState, l: number): number {
  l -= 49; // '1'
  const cap = ms.capture[l];
  if (l < 0 || l >= ms.level || cap === undefined || cap.len === CAP_UNFINISHED) return raise(ms.L, `invalid capture index %${l + 1}`);
  return l;
}

function captureToClose(ms: MatchState): number {
  for (let level = ms.level - 1; level >= 0; level--) if (ms.capture[level]?.len === CAP_UNFINISHED) return level;
  return raise(ms.L, 'invalid pattern capture');
}

function classEnd(ms: MatchState, p: number): number {
  const c = ms.p[p++];
  if (c === L_ESC) {
    if (p >= ms.pEnd) raise(ms.L, "malformed pattern (ends with '%')");
    return p + 1;
  }
  if (c === 91) { // '['
    const start = p;
    if (ms.p[p] === 94) p++;
    do {
      if (p >= ms.pEnd) raise(ms.L, "malformed pattern (missing ']')");
      if (ms.p[p++] === L_ESC && p < ms.pEnd) p++;
    } while (ms.p[p] !== 93);
    ms.step((p - start) >> 4); // a class can be megabytes long: scanning it is work (short ones stay free)
    return p + 1;
  }
  return p;
}

function matchBracketClass(ms: MatchState, c: number, p: number, ec: number): boolean {
  ms.step((ec - p) >> 4);
  let sig = true;
  if (ms.p[p + 1] === 94) { sig = false; p++; }
  while (++p < ec) {
    if (ms.p[p] === L_ESC) {
      p++;
      if (matchClass(c, ms.p[p] ?? 0)) return sig;
    } else if (ms.p[p + 1] === 45 && p + 2 < ec) {
      p += 2;
      if (inRange(ms, p - 2, c)) return sig;
    } else if (ms.p[p] === c) return sig;
  }
  return !sig;
}

/** Whether c lies in the class range `x-y` whose `x` is at lo. */
function inRange(ms: MatchState, lo: number, c: number): boolean {
  return (ms.p[lo] ?? 0) <= c && c <= (ms.p[lo + 2] ?? 0);
}

function singleMatch(ms: MatchState, s: number, p: number, ep: number): boolean {
  if (s >= ms.srcEnd) return false;
  const c = ms.src[s] ?? 0;
  switch (ms.p[p]) {
    case 46: return true; // '.'
    case L_ESC: return matchClass(c, ms.p[p + 1] ?? 0);
    case 91: return matchBracketClass(ms, c, p, ep - 1);
    default: return ms.p[p] === c;
  }
}

function matchBalance(ms: MatchState, s: number, p: number): number | null {
  if (p >= ms.pEnd - 1) raise(ms.L, "malformed pattern (missing arguments to '%b'");
  if (ms.src[s] !== ms.p[p]) return null;
  const b = ms.p[p];
  const e = ms.p[p + 1];
  let cont = 1;
  while (++s < ms.srcEnd) {
    ms.step();
    if (ms.src[s] === e) {
      if (--cont === 0) return s + 1;
    } else if (ms.src[s] === b) cont++;
  }
  return null;
}

function maxExpand(ms: MatchState, s: number, p: number, ep: number): number | null {
  let i = 0;
  while (singleMatch(ms, s + i, p, ep)) { i++; ms.step(); }
  while (i >= 0) {
    const res = match(ms, s + i, ep + 1);
    if (res !== null) return res;
    i--;
  }
  return null;
}

function minExpand(ms: MatchState, s: number, p: number, ep: number): number | null {
  for (;;) {
    const res = match(ms, s, ep + 1);
    if (res !== null) return res;
    if (!singleMatch(ms, s, p, ep)) return null;
    s++;
    ms.step();
  }
}

function startCapture(ms: MatchState, s: number, p: number, what: number): number | null {
  const level = ms.level;
  if (level >= MAXCAPTURES) raise(ms.L, 'too many captures');
  ms.capture[level] = { init: s, len: what };
  ms.level = level + 1;
  const res = match(ms, s, p);
  if (res === null) ms.level--;
  return res;
}

function endCapture(ms: MatchState, s: number, p: number): number | null {
  const l = captureToClose(ms);
  const cap = ms.capture[l] as Capture;
  cap.len = s - cap.init;
  const res = match(ms, s, p);
  if (res === null) cap.len = CAP_UNFINISHED;
  return res;
}

function matchCapture(ms: MatchState, s: number, l: number): number | null {
  const cap = ms.capture[checkCapture(ms, l)] as Capture;
  const len = cap.len;
  ms.step(len >> 4);
  if (ms.srcEnd - s < len) return null;
  for (let i = 0; i < len; i++) if (ms.src[cap.init + i] !== ms.src[s + i]) return null;
  return s + len;
}

function matchFrontier(ms: MatchState, s: number, p: number): [number | null, number, boolean] {
  if (ms.p[p] !== 91) raise(ms.L, "missing '[' after '%f' in pattern");
  const ep = classEnd(ms, p);
  const previous = s === 0 ? 0 : ms.src[s - 1] ?? 0;
  const current = s === ms.srcEnd ? 0 : ms.src[s] ?? 0;
  if (!matchBracketClass(ms, previous, p, ep - 1) && matchBracketClass(ms, current, p, ep - 1)) return [s, ep, true];
  return [null, p, false];
}

/** One step of `match` for an escape (%b, %f, %0-%9); returns [s, p, continue] or null to fall to the default. */
function matchEscape(ms: MatchState, s: number, p: number): [number | null, number, boolean] | null {
  const c = ms.p[p + 1] ?? 0;
  if (c === 98) { // %b
    const r = matchBalance(ms, s, p + 2);
    return r === null ? [null, p, false] : [r, p + 4, true];
  }
  if (c === 102) return matchFrontier(ms, s, p + 2); // %f
  if (isdigit(c)) {
    const r = matchCapture(ms, s, c);
    return r === null ? [null, p, false] : [r, p + 2, true];
  }
  return null;
}

/** A single character class with its optional suffix; returns [s, p, continue]. */
function matchDefault(ms: MatchState, s: number, p: number): [number | null, number, boolean] {
  const ep = classEnd(ms, p);
  const suffix = ms.p[ep];
  if (!singleMatch(ms, s, p, ep)) {
    if (suffix === 42 || suffix === 63 || suffix === 45) return [s, ep + 1, true]; // '*', '?', '-' accept empty
    return [null, p, false];
  }
  switch (suffix) {
    case 63: { // '?'
      const res = match(ms, s + 1, ep + 1);
      return res !== null ? [res, p, false] : [s, ep + 1, true];
    }
    case 43: return [maxExpand(ms, s + 1, p, ep), p, false]; // '+'
    case 42: return [maxExpand(ms, s, p, ep), p, false]; // '*'
    case 45: return [minExpand(ms, s, p, ep), p, false]; // '-'
    default: return [s + 1, ep, true];
  }
}

function match(ms: MatchState, s: number | null, p: number): number | null {
  if (ms.matchdepth-- === 0) raise(ms.L, 'pattern too complex');
  ms.step();
  let more = true;
  while (more && s !== null) {
    more = false;
    if (p === ms.pEnd) break;
    const c = ms.p[p];
    let r: [number | null, number, boolean] | null = null;
    if (c === 40) { // '('
      s = openCapture(ms, s, p);
      break;
    } else if (c === 41) { // ')'
      s = endCapture(ms, s, p + 1);
      break;
    } else if (c === 36 && p + 1 === ms.pEnd) { // '$' at the end
      s = atEnd(ms, s);
      break;
    } else if (c === L_ESC) {
      r = matchEscape(ms, s, p);
    }
    r ??= matchDefault(ms, s, p);
    [s, p, more] = r;
  }
  ms.matchdepth++;
  return s;
}

/** '(' at p: a position capture `()` or the start of a substring capture. */
function openCapture(ms: MatchState, s: number, p: number): number | null {
  return ms.p[p + 1] === 41 ? startCapture(ms, s, p + 2, CAP_POSITION) : startCapture(ms, s, p + 1, CAP_UNFINISHED);
}

/** A final '$' matches only at the end of the subject. */
function atEnd(ms: MatchState, s: number): number | null {
  return ms.srcEnd === s ? s : null;
}

function pushOneCapture(ms: MatchState, i: number, s: number, e: number): void {
  const L = ms.L;
  if (i >= ms.level) {
    if (i !== 0) raise(L, `invalid capture index %${i + 1}`);
    lua.lua_pushlstring(L, ms.src.subarray(s, e), e - s);
    return;
  }
  const cap = ms.capture[i] as Capture;
  if (cap.len === CAP_UNFINISHED) raise(L, 'unfinished capture');
  if (cap.len === CAP_POSITION) lua.lua_pushinteger(L, cap.init + 1);
  else lua.lua_pushlstring(L, ms.src.subarray(cap.init, cap.init + cap.len), cap.len);
}

function pushCaptures(ms: MatchState, s: number | null, e: number): number {
  const n = ms.level === 0 && s !== null ? 1 : ms.level;
  lauxlib.luaL_checkstack(ms.L, n, 'too many captures');
  for (let i = 0; i < n; i++) pushOneCapture(ms, i, s ?? 0, e);
  return n;
}

function noSpecials(p: LuaString): boolean {
  for (const c of p) if (SPECIALS.has(c)) return false;
  return true;
}

/**
 * The byte every match must start with, when the pattern begins with a mandatory literal (a plain character or an
 * escaped punctuation mark not followed by '*', '?' or '-'); -1 otherwise. Lets the unanchored loops jump to the
 * next candidate with indexOf instead of trying every position (same results, far fewer steps).
 */
function firstLiteral(p: LuaString): number {
  let c = p[0];
  let next = 1;
  if (c === undefined) return -1;
  if (c === L_ESC) {
    c = p[1];
    if (c === undefined || isalnum(c)) return -1;
    next = 2;
  } else if (SPECIALS.has(c) || c === 93) return -1;
  const q = p[next];
  return q === 42 || q === 63 || q === 45 ? -1 : c;
}

function posrelat(pos: number, len: number): number {
  if (pos >= 0) return pos;
  if (-pos > len) return 0;
  return len + pos + 1;
}

function plainFind(s: LuaString, p: LuaString, from: number): number {
  return Buffer.from(s.buffer, s.byteOffset, s.length).indexOf(Buffer.from(p.buffer, p.byteOffset, p.length), from);
}

function pushPlainFind(budget: Budget, L: LuaState, [s, p]: [LuaString, LuaString], init: number): number {
  budget.charge(L, (s.length - init) >> 6);
  const f = plainFind(s, p, init - 1);
  if (f < 0) {
    lua.lua_pushnil(L);
    return 1;
  }
  lua.lua_pushinteger(L, f + 1);
  lua.lua_pushinteger(L, f + p.length);
  return 2;
}

function findAux(budget: Budget, L: LuaState, find: boolean): number {
  const s = lauxlib.luaL_checkstring(L, 1);
  let p = lauxlib.luaL_checkstring(L, 2);
  const init = Math.max(1, posrelat(lauxlib.luaL_optinteger(L, 3, 1), s.length));
  if (init > s.length + 1) { lua.lua_pushnil(L); return 1; }
  if (find && (lua.lua_toboolean(L, 4) || noSpecials(p))) return pushPlainFind(budget, L, [s, p], init);
  const anchor = p[0] === 94;
  if (anchor) p = p.subarray(1);
  const ms = new MatchState(L, budget, s, p);
  const lit = anchor ? -1 : firstLiteral(p);
  let s1 = init - 1;
  do {
    if (lit >= 0) {
      s1 = s.indexOf(lit, s1);
      if (s1 < 0) break;
    }
    ms.reprep();
    const res = match(ms, s1, 0);
    if (res !== null) return pushFound(ms, find, s1, res);
  } while (s1++ < ms.srcEnd && !anchor);
  lua.lua_pushnil(L);
  return 1;
}

/** string.find's results are the match's bounds then its captures; string.match's are the captures alone. */
function pushFound(ms: MatchState, find: boolean, s1: number, res: number): number {
  if (!find) return pushCaptures(ms, s1, res);
  lua.lua_pushinteger(ms.L, s1 + 1);
  lua.lua_pushinteger(ms.L, res);
  return pushCaptures(ms, null, 0) + 2;
}

function gmatch(budget: Budget, L: LuaState): number {
  const s = lauxlib.luaL_checkstring(L, 1);
  const p = lauxlib.luaL_checkstring(L, 2);
  const ms = new MatchState(L, budget, s, p);
  const lit = firstLiteral(p);
  let src = 0;
  let lastMatch: number | null = null;
  lua.lua_pushjsfunction(L, (L2) => {
    ms.L = L2;
    for (; src <= ms.srcEnd; src++) {
      if (lit >= 0) {
        src = s.indexOf(lit, src);
        if (src < 0) { src = ms.srcEnd + 1; break; }
      }
      ms.reprep();
      const e = match(ms, src, 0);
      if (e !== null && e !== lastMatch) {
        const start = src;
        src = lastMatch = e;
        return pushCaptures(ms, start, e);
      }
    }
    return 0;
  });
  return 1;
}

/** The growing result of gsub: chunks plus a running length checked against the string limit. */
class Output {
  private readonly chunks: Uint8Array[] = [];
  length = 0;
  constructor(private readonly L: LuaState, private readonly budget: Budget) {}
  add(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.length += chunk.length;
    this.budget.checkString(this.L, this.length);
    this.chunks.push(chunk);
  }
  result(): Uint8Array { return Buffer.concat(this.chunks, this.length); }
}

function addString(ms: MatchState, out: Output, s: number, e: number): void {
  const L = ms.L;
  const news = lua.lua_tolstring(L, 3) as LuaString;
  ms.step(news.length >> 4); // the replacement is walked once per match, even when it adds nothing
  let run = 0;
  for (let i = 0; i < news.length; i++) {
    if (news[i] !== L_ESC) continue;
    ms.step(); // each %-escape does real work (a capture pushed and converted): charged, and the clock looked at
    out.add(news.subarray(run, i));
    i++;
    const c = news[i] ?? 0;
    run = i + 1;
    if (!isdigit(c)) {
      if (c !== L_ESC) raise(L, "invalid use of '%' in replacement string");
      out.add(news.subarray(i, i + 1));
    } else if (c === 48) {
      out.add(ms.src.subarray(s, e));
    } else {
      pushOneCapture(ms, c - 49, s, e);
      out.add(lauxlib.luaL_tolstring(L, -1).slice());
      lua.lua_pop(L, 2);
    }
  }
  out.add(news.subarray(run));
}

function addValue(ms: MatchState, { out, tr }: { out: Output; tr: number }, s: number, e: number): void {
  const L = ms.L;
  if (tr === lua.LUA_TFUNCTION) {
    lua.lua_pushvalue(L, 3);
    lua.lua_call(L, pushCaptures(ms, s, e), 1);
  } else if (tr === lua.LUA_TTABLE) {
    pushOneCapture(ms, 0, s, e);
    lua.lua_gettable(L, 3);
  } else {
    addString(ms, out, s, e);
    return;
  }
  if (!lua.lua_toboolean(L, -1)) out.add(ms.src.subarray(s, e));
  else if (!lua.lua_isstring(L, -1)) raise(L, `invalid replacement value (a ${Buffer.from(lauxlib.luaL_typename(L, -1)).toString()})`);
  else out.add((lua.lua_tolstring(L, -1) as LuaString).slice());
  lua.lua_pop(L, 1);
}

function replacementType(L: LuaState): number {
  const tr = lua.lua_type(L, 3);
  const ok = tr === lua.LUA_TNUMBER || tr === lua.LUA_TSTRING || tr === lua.LUA_TFUNCTION || tr === lua.LUA_TTABLE;
  return ok ? tr : lauxlib.luaL_argerror(L, 3, 'string/function/table expected');
}

function gsub(budget: Budget, L: LuaState): number {
  const src = lauxlib.luaL_checkstring(L, 1);
  let p = lauxlib.luaL_checkstring(L, 2);
  const tr = replacementType(L);
  const maxS = lauxlib.luaL_optinteger(L, 4, src.length + 1);
  const anchor = p[0] === 94;
  if (anchor) p = p.subarray(1);
  const ms = new MatchState(L, budget, src, p);
  const out = new Output(L, budget);
  const sink = { out, tr };
  const lit = anchor ? -1 : firstLiteral(p);
  let s = 0;
  let copied = 0;
  let lastMatch: number | null = null;
  let n = 0;
  while (n < maxS) {
    if (lit >= 0) {
      s = src.indexOf(lit, s);
      if (s < 0) break;
    }
    ms.reprep();
    const e = match(ms, s, 0);
    if (e !== null && e !== lastMatch) {
      n++;
      out.add(src.subarray(copied, s));
      addValue(ms, sink, s, e);
      s = copied = lastMatch = e;
    } else if (s < ms.srcEnd) s++;
    else break;
    if (anchor) break;
  }
  out.add(src.subarray(copied));
  pushOwned(L, out.result());
  lua.lua_pushinteger(L, n);
  return 2;
}

/** string.find/match/gmatch/gsub bound to one lambda's budget. */
export function patternFunctions(budget: Budget): Record<'find' | 'match' | 'gmatch' | 'gsub', LuaCFunction> {
  return {
    find: (L) => findAux(budget, L, true),
    match: (L) => findAux(budget, L, false),
    gmatch: (L) => gmatch(budget, L),
    gsub: (L) => gsub(budget, L),
  };
}
