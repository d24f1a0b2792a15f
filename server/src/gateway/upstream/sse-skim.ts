// The LLM accounting tap's reader for a stream whose text nobody collects (no conversation log, no response-phase
// prompt_guard): most events then matter only by the length of their payload (the chars/4 fallback), and one or two
// carry the usage. `SseSkimmer` finds lines and fields in the bytes as they came, counts a payload's characters
// without decoding it when the bytes are ASCII, and decodes only the events its filter names, which it hands to a
// full `SseParser` (sse.ts), so that what a reader sees of them is exactly what that parser gives. A chunk costs a
// few `Buffer.indexOf` calls and makes no string (docs/performance.md, "Streams: the cost per chunk").
//
// It keeps the bytes of the event being read (from its first line), so its memory is one event (twice that while it
// grows); the meter that owns it stops feeding it past the body cap, which bounds that.
import { isAscii } from 'node:buffer';
import { SseParser, type SseHandler } from './sse.ts';

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;
const QUOTE = 34;
const EMPTY = Buffer.alloc(0);
/** Carried bytes from this length on go to a store (see `join`), and a store above KEEP_STORE is let go once unused. */
const MIN_STORE = 4096;
const KEEP_STORE = 65536;
/** Carried bytes up to this length are checked for ASCII again after a chunk that was not (see `push`). */
const RECHECK_ASCII = 4096;
const DATA = Buffer.from('data');
const EVENT = Buffer.from('event');

/** Which events must be read whole; the others are only counted. */
export interface SkimFilter {
  /** A payload that contains this text (e.g. `"usage":{`). */
  dataMarker?: string;
  /** Events of these names (the value of the event's last `event:` field). */
  names?: readonly string[];
  /** A payload that is exactly this (a stream's terminator, such as `[DONE]`) is neither read nor counted. */
  done?: string;
}

/** A filter's texts as bytes, made once per filter (each provider's reader shares one filter object). */
interface Compiled {
  /** The marker less its first byte when that is a quote (see `findMarker`), and that byte's count (0 or 1). */
  markerTail: Buffer | undefined;
  lead: number;
  names: Buffer[];
  done: Buffer | undefined;
}

const compiled = new WeakMap<SkimFilter, Compiled>();

function compile(filter: SkimFilter): Compiled {
  let c = compiled.get(filter);
  if (c) return c;
  const marker = filter.dataMarker ? Buffer.from(filter.dataMarker) : undefined;
  const lead = marker && marker.length > 1 && marker[0] === QUOTE ? 1 : 0;
  c = {
    markerTail: marker?.subarray(lead),
    lead,
    names: (filter.names ?? []).map((n) => Buffer.from(n)),
    done: filter.done !== undefined ? Buffer.from(filter.done) : undefined,
  };
  compiled.set(filter, c);
  return c;
}

export class SseSkimmer {
  private readonly f: Compiled;
  /** Reads the events the filter names: the same parser as when text is collected. */
  private readonly exact: SseParser;

  /** Bytes carried to the next push: from the first line of the unfinished event, or the unfinished line, on. */
  private rest: Buffer | undefined;
  /** Where scanning resumes in `rest` (the lines before it were read), and whether its bytes are known to be ASCII. */
  private restScan = 0;
  private restAscii = true;
  /** Where carried bytes are joined to the next chunk (see `join`). */
  private store: Buffer | undefined;
  /** The last line ended with a CR that was the last byte: an LF first in the next push belongs to it. */
  private skipLf = false;

  // The event being read: its first line's index in the current buffer (-1: none yet), its data lines, their
  // characters joined with LF, whether the filter names it, and whether its one data line is the terminator.
  private evStart = -1;
  private dataLines = 0;
  private chars = 0;
  private marked = false;
  private named = false;
  private isDone = false;

  // Of the buffer being scanned: whether it is all ASCII, and the next occurrence of the marker (-2: not looked for
  // yet, -1: none after the last place looked).
  private ascii = true;
  private markAt = -2;

  constructor(filter: SkimFilter, onEvent: SseHandler, private readonly onSkipped: (chars: number) => void, maxEventChars: number) {
    this.f = compile(filter);
    this.exact = new SseParser(onEvent, maxEventChars);
  }

  push(chunk: Buffer): void {
    const carried = this.rest;
    const buf = carried ? this.join(carried, chunk) : chunk;
    this.rest = undefined;
    this.ascii = (!carried || this.restAscii) && isAscii(chunk);
    this.markAt = -2;
    const pos = carried ? this.lines(buf, this.restScan, carried.length) : this.lines(buf, 0, 0);
    this.carry(buf, pos);
  }

  /** Keeps what the next push needs of buf: the unfinished event from its first line, or the unfinished line. */
  private carry(buf: Buffer, pos: number): void {
    const keepFrom = this.evStart >= 0 ? this.evStart : pos;
    if (keepFrom < buf.length) {
      const rest = buf.subarray(keepFrom);
      this.rest = rest;
      this.restScan = pos - keepFrom;
      // A non-ASCII byte may lie before what is kept. A long rest is not checked again, so that an event spanning
      // many chunks is not scanned once per chunk: its bytes then take the decoding path, which counts them as well.
      this.restAscii = this.ascii || (rest.length <= RECHECK_ASCII && isAscii(rest));
    }
    if (this.evStart >= 0) this.evStart = 0;
    if (this.store && this.store.length > KEEP_STORE && this.rest?.buffer !== this.store.buffer) this.store = undefined;
  }

  /**
   * The carried bytes and the chunk in one buffer. Once an event's carried bytes are long, they move to a store that
   * is appended to in place and doubles when full, so an event that spans many chunks is copied a few times rather
   * than once per chunk.
   */
  private join(carried: Buffer, chunk: Buffer): Buffer {
    // A short carry (the common case: an event cut by a chunk's end) costs less copied again than kept.
    if (carried.length < MIN_STORE) return Buffer.concat([carried, chunk]);
    const n = carried.length + chunk.length;
    let store = this.store;
    if (!store || store.length < n) {
      store = this.store = Buffer.allocUnsafeSlow(Math.max(2 * n, MIN_STORE));
      carried.copy(store, 0);
    } else if (carried.buffer !== store.buffer || carried.byteOffset !== store.byteOffset) {
      // From a chunk, or a later part of the store (what follows an event that ended; copy allows the overlap).
      carried.copy(store, 0);
    }
    chunk.copy(store, carried.length);
    return store.subarray(0, n);
  }

  /** The stream ended: an unfinished last line is a line, and a last event without a blank line after it counts. */
  end(): void {
    const buf = this.rest ?? EMPTY;
    const pos = this.rest ? this.restScan : 0;
    this.rest = undefined;
    this.ascii = isAscii(buf);
    this.markAt = -2;
    if (pos < buf.length) this.line(buf, pos, buf.length);
    this.line(buf, buf.length, buf.length);
  }

  /**
   * Reads the complete lines of buf from `pos`; returns where the unfinished line starts. The bytes before `searched`
   * (those carried) hold no line end after `pos`: a long line is searched once, not once per chunk.
   */
  private lines(buf: Buffer, pos: number, searched: number): number {
    pos = this.skipLeadingLf(buf, pos);
    const from = pos > searched ? pos : searched;
    let lf = buf.indexOf(LF, from);
    let cr = buf.indexOf(CR, from);
    for (;;) {
      const end = lf >= 0 && (cr < 0 || lf < cr) ? lf : cr;
      if (end < 0) return pos;
      this.line(buf, pos, end);
      if (end === lf) {
        pos = end + 1;
        // A blank line often follows: no search for it.
        lf = buf[pos] === LF ? pos : buf.indexOf(LF, pos);
        continue;
      }
      pos = this.afterCr(buf, end);
      cr = buf.indexOf(CR, pos);
      if (lf >= 0 && lf < pos) lf = buf.indexOf(LF, pos);
    }
  }

  /** Where the next line starts after a CR: past an LF that follows it (CRLF); a CR last in buf may have it next push. */
  private afterCr(buf: Buffer, cr: number): number {
    const pos = cr + 1;
    if (pos < buf.length) return buf[pos] === LF ? pos + 1 : pos;
    this.skipLf = true;
    return pos;
  }

  private skipLeadingLf(buf: Buffer, pos: number): number {
    if (!this.skipLf || pos >= buf.length) return pos;
    this.skipLf = false;
    return buf[pos] === LF ? pos + 1 : pos;
  }

  /** One line, [s, e) of buf without its terminator: data and event are read; other fields and comments are not. */
  private line(buf: Buffer, s: number, e: number): void {
    if (s === e) return this.dispatch(buf, s);
    if (this.evStart < 0) this.evStart = s;
    let v = fieldValueAt(buf, s, e, DATA);
    if (v >= 0) return this.dataLine(buf, v, e);
    v = fieldValueAt(buf, s, e, EVENT);
    if (v < 0) return;
    this.named = false;
    for (const name of this.f.names) if (same(buf, v, e, name)) this.named = true;
  }

  private dataLine(buf: Buffer, v: number, e: number): void {
    this.dataLines++;
    const len = this.ascii ? e - v : buf.toString('utf8', v, e).length;
    this.chars += this.dataLines > 1 ? len + 1 : len;
    const done = this.f.done;
    this.isDone = this.dataLines === 1 && done !== undefined && same(buf, v, e, done);
    if (this.marked || !this.f.markerTail) return;
    if (this.markAt === -2 || (this.markAt >= 0 && this.markAt < v)) this.markAt = this.findMarker(buf, v);
    // A marker holds no line end, so one that starts before the end of this line lies within it.
    this.marked = this.markAt >= 0 && this.markAt < e;
  }

  /**
   * The marker's first index at or after `from`, or -1. A search for a needle that starts with a quote steps through
   * every quote of the JSON (about 40 in a chat chunk, three times the cost of the rest of the chunk's work), so a
   * quoted marker is looked for without its quote, which is then checked.
   */
  private findMarker(buf: Buffer, from: number): number {
    const tail = this.f.markerTail!;
    const lead = this.f.lead;
    for (let at = buf.indexOf(tail, from + lead); at >= 0; at = buf.indexOf(tail, at + 1)) {
      if (lead === 0 || buf[at - 1] === QUOTE) return at - lead;
    }
    return -1;
  }

  /** A blank line at `s`: the event before it, if it had data, is read or counted. */
  private dispatch(buf: Buffer, s: number): void {
    if (this.dataLines > 0) {
      if (this.marked || this.named) {
        this.exact.push(buf.subarray(this.evStart, s));
        this.exact.end();
      } else if (!this.isDone) this.onSkipped(this.chars);
    }
    this.evStart = -1;
    this.dataLines = 0;
    this.chars = 0;
    this.marked = this.named = this.isDone = false;
  }
}

/**
 * Where the value of the field `name` starts in the line [s, e) (after the colon and one space, if any; the line's end
 * for a bare name), or -1 when the line is another field.
 */
function fieldValueAt(buf: Buffer, s: number, e: number, name: Buffer): number {
  const after = s + name.length;
  if (after > e) return -1;
  for (let i = 0; i < name.length; i++) if (buf[s + i] !== name[i]) return -1;
  if (after === e) return e;
  if (buf[after] !== COLON) return -1;
  return after + 1 < e && buf[after + 1] === SPACE ? after + 2 : after + 1;
}

/** Whether buf[v, e) is the bytes of `want`. */
function same(buf: Buffer, v: number, e: number, want: Buffer): boolean {
  if (e - v !== want.length) return false;
  for (let i = 0; i < want.length; i++) if (buf[v + i] !== want[i]) return false;
  return true;
}
