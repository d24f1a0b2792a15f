// The Server-Sent-Events reader of both data planes. `SseLines` does the framing they share (UTF-8 decoding across
// chunks, CR / LF / CRLF line ends cut anywhere); on top of it:
// - `SseParser`, the LLM accounting tap when it collects text (gateway/llm/meter.ts): only reads, the client gets the
//   original bytes, so it keeps nothing but the unfinished line and the current event's data, and hands on (event
//   name, data). Without text the tap reads the bytes (sse-skim.ts), and this parser reads only the events with usage;
// - `SseSplitter`, the MCP response stream (gateway/mcp/respond.ts): events are rewritten by rules, so each is handed
//   on with its raw text and field lines, and an untouched one is forwarded byte for byte.
// Both bound memory by a cap on one event; what happens to an event over it differs (see each class).
import { StringDecoder } from 'node:string_decoder';

const LF = 10;
const COLON = 58;
const SPACE = 32;
/** An unfinished line from this length on is held in pieces (see `SseLines`). */
const LONG_LINE = 4096;

/**
 * Decoded text not yet consumed, cut into lines on demand. A long line that spans many chunks (one large event's
 * payload) is held as a list of pieces until a chunk brings a line end, and the text already searched is not searched
 * again, so reading an event costs time linear in its size: appending to the text and searching it each chunk copied
 * and scanned the whole unfinished line every time (docs/performance.md, "One large event").
 */
export class SseLines {
  private readonly decoder = new StringDecoder('utf8');
  /** Text from the first character the owner still needs; `pos` is where the next line starts. */
  private text = '';
  pos = 0;
  /** Text after `text` that holds no line end, joined to it only when a chunk brings one (or `buf` is read). */
  private pieces: string[] = [];
  private piecesLength = 0;
  /** [pos, clean) of `text` holds no line end: `next` searches from there. */
  private clean = 0;
  // Where the next CR is (-1: none in text): streams rarely use CR, so this spares a rescan of the text per line.
  private cr = -1;
  private crValid = false;

  /** The text, its pieces joined (see `pieces`). */
  get buf(): string {
    this.join();
    return this.text;
  }

  /** The length of `buf`, without joining it. */
  get length(): number {
    return this.text.length + this.piecesLength;
  }

  write(chunk: Buffer): void {
    const s = this.decoder.write(chunk);
    if (s === '') return;
    // A long unfinished line that this chunk does not end either: keep the chunk aside. (A short line is appended to:
    // copying it again costs less than the pieces.)
    if (this.clean === this.text.length && this.clean - this.pos >= LONG_LINE && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
      this.pieces.push(s);
      this.piecesLength += s.length;
      return;
    }
    this.append(s);
  }

  /** Flushes a trailing incomplete UTF-8 sequence (as U+FFFD) at the end of the stream. */
  finish(): void {
    this.append(this.decoder.end());
  }

  private append(s: string): void {
    this.join();
    this.text += s;
    if (this.cr < 0) this.crValid = false;
  }

  private join(): void {
    if (this.piecesLength === 0) return;
    this.text += this.pieces.join('');
    this.pieces = [];
    this.piecesLength = 0;
    this.clean = this.text.length;
  }

  /**
   * The next complete line (without its terminator), moving `pos` past it; undefined when none is complete. A CR
   * that is the last character waits for more text (it may be the first half of a CRLF) unless `final`.
   */
  next(final: boolean): string | undefined {
    if (this.piecesLength !== 0) return undefined;
    const buf = this.text;
    const from = this.pos;
    const searchFrom = this.clean > from ? this.clean : from;
    const n = buf.indexOf('\n', searchFrom);
    const r = this.nextCr(from, searchFrom);
    let end: number;
    if (r < 0 || (n >= 0 && n < r)) {
      if (n < 0) return this.unfinished(buf.length);
      end = n;
      this.pos = n + 1;
    } else {
      end = r;
      if (r + 1 < buf.length) this.pos = buf.charCodeAt(r + 1) === LF ? r + 2 : r + 1;
      else if (final) this.pos = r + 1;
      else return this.unfinished(r);
    }
    return buf.slice(from, end);
  }

  /** The first CR at or after `from` (-1: none), searched for only when the one known is behind or text was added. */
  private nextCr(from: number, searchFrom: number): number {
    if (!this.crValid || (this.cr >= 0 && this.cr < from)) {
      this.cr = this.text.indexOf('\r', searchFrom);
      this.crValid = true;
    }
    return this.cr;
  }

  /** No complete line from `pos`: the text before `at` holds no line end. */
  private unfinished(at: number): undefined {
    this.clean = at;
    return undefined;
  }

  /** Forgets the text before `at` (an index into buf); a line begun before it now starts at 0. */
  drop(at: number): void {
    if (at === 0) return;
    this.text = this.text.slice(at);
    this.pos = this.pos > at ? this.pos - at : 0;
    this.clean = this.clean > at ? this.clean - at : 0;
    if (this.cr >= at) this.cr -= at;
    else if (this.cr >= 0) this.crValid = false;
  }

  /** Forgets everything buffered. */
  clear(): void {
    this.text = '';
    this.pieces = [];
    this.piecesLength = 0;
    this.pos = 0;
    this.clean = 0;
    this.cr = -1;
    this.crValid = true;
  }
}

/** Whether `line` is the field `name` (`name` alone or `name:...`). */
export function isField(line: string, name: string): boolean {
  return line.startsWith(name) && (line.length === name.length || line.charCodeAt(name.length) === COLON);
}

/** The value of a field line known to be `name` (one leading space after the colon dropped). */
export function fieldValue(line: string, name: string): string {
  const at = name.length + 1;
  if (line.length <= at) return '';
  return line.charCodeAt(at) === SPACE ? line.slice(at + 1) : line.slice(at);
}

export type SseHandler = (event: string, data: string) => void;

/**
 * Read-only event parser: reports each complete event that has data as (name, data). An event larger than
 * `maxEventChars` is skipped, and the following ones are read.
 */
export class SseParser {
  private readonly text = new SseLines();
  private event = '';
  private data: string | undefined = undefined;
  private skipping = false;

  constructor(private readonly onEvent: SseHandler, private readonly maxEventChars: number) {}

  push(chunk: Buffer): void {
    this.text.write(chunk);
    this.drain(false);
  }

  /** Dispatches a last event that had no blank line after it. */
  end(): void {
    this.text.finish();
    this.drain(true);
    if (this.text.buf.length) this.line(this.text.buf);
    this.text.clear();
    this.line('');
  }

  private drain(final: boolean): void {
    const t = this.text;
    for (let line = t.next(final); line !== undefined; line = t.next(final)) this.line(line);
    t.drop(t.pos);
    if (t.length > this.maxEventChars) {
      // One unterminated line longer than the cap: drop it and the event it belongs to.
      t.clear();
      this.skipping = true;
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (!this.skipping && this.data !== undefined) this.onEvent(this.event || 'message', this.data);
      this.event = '';
      this.data = undefined;
      this.skipping = false;
      return;
    }
    if (this.skipping) return;
    if (isField(line, 'data')) {
      const v = fieldValue(line, 'data');
      const data = this.data === undefined ? v : this.data + '\n' + v;
      if (data.length > this.maxEventChars) {
        this.skipping = true;
        this.data = undefined;
        return;
      }
      this.data = data;
    } else if (isField(line, 'event')) this.event = fieldValue(line, 'event');
  }
}

export interface SseEvent {
  /** The event as received, including its terminating blank line (absent when oversized). */
  raw?: string;
  /** Field lines of the event (`data: ...`, `id: ...`, comments), without line terminators. */
  lines: string[];
  /** Joined `data` field, or undefined when the event has none. */
  data?: string;
  oversized?: { head: string; tail: string };
}

const KEEP = 4096;

/**
 * Events cut at blank lines and handed on with their raw text (ids, `retry`, comments and the empty priming event
 * included). An event larger than `maxEventChars` is not kept in memory: the caller gets its first and last few KB
 * (enough to find the JSON-RPC id) and its non-data fields, and answers with a JSON-RPC error instead.
 */
export class SseSplitter {
  private readonly text = new SseLines();
  private lines: string[] = [];
  private oversized = false;
  private head = '';
  private tail = '';
  private partialNonEmpty = false;

  constructor(private readonly maxEventChars: number) {}

  push(chunk: Buffer): SseEvent[] {
    this.text.write(chunk);
    return this.scan(false);
  }

  end(): SseEvent[] {
    this.text.finish();
    const out = this.scan(true);
    // A stream cut in the middle of an event: pass the fragment on unchanged (the client sees what the server sent).
    if (!this.oversized && this.text.buf.length) out.push({ raw: this.text.buf, lines: [] });
    this.text.clear();
    return out;
  }

  private scan(final: boolean): SseEvent[] {
    const t = this.text;
    const out: SseEvent[] = [];
    let evStart = 0;
    for (let line = t.next(final); line !== undefined; line = t.next(final)) {
      // In an oversized event the start of this line may have been dropped already: then it is not a field line.
      const continued = this.partialNonEmpty;
      const empty = line === '' && !continued;
      this.partialNonEmpty = false;
      if (this.oversized) this.tail = (this.tail + line + '\n').slice(-KEEP);
      if (empty) {
        out.push(this.finishEvent(t.buf.slice(evStart, t.pos)));
        evStart = t.pos;
      } else if (!this.oversized || (!continued && keptWhenOversized(line))) this.lines.push(line);
    }
    if (this.oversized) {
      this.keepUnfinishedLineTail();
      return out;
    }
    t.drop(evStart);
    if (t.length > this.maxEventChars) {
      this.oversized = true;
      this.head = t.buf.slice(0, KEEP);
      this.tail = t.buf.slice(Math.max(0, t.pos - KEEP), t.pos);
      // Keep the event's own fields (id, event, retry) for the replacement; drop the data.
      this.lines = this.lines.filter(keptWhenOversized);
      this.keepUnfinishedLineTail();
    }
    return out;
  }

  /** In an oversized event: fold the unfinished line into the tail, keeping only its last character buffered (a lone \r may be half of \r\n). */
  private keepUnfinishedLineTail(): void {
    const t = this.text;
    t.drop(t.pos);
    const rest = t.buf;
    if (rest.length > 1) {
      this.tail = (this.tail + rest.slice(0, -1)).slice(-KEEP);
      this.partialNonEmpty = true;
      t.drop(rest.length - 1);
    }
  }

  private finishEvent(raw: string): SseEvent {
    const lines = this.lines;
    this.lines = [];
    if (this.oversized) {
      const ev: SseEvent = { lines, oversized: { head: this.head, tail: this.tail } };
      this.oversized = false;
      this.head = this.tail = '';
      return ev;
    }
    let data: string | undefined;
    for (const l of lines) {
      if (isField(l, 'data')) {
        const v = fieldValue(l, 'data');
        data = data === undefined ? v : data + '\n' + v;
      }
    }
    return { raw, lines, data };
  }
}

const keptWhenOversized = (l: string) => l.length < 1024 && !isField(l, 'data');

/** Re-serialises an event with a new data payload, keeping its other fields (id, event, retry, comments) in order. */
export function withData(ev: SseEvent, data: string): string {
  const out: string[] = [];
  let placed = false;
  for (const l of ev.lines) {
    if (isField(l, 'data')) {
      if (!placed) out.push(`data: ${data}`);
      placed = true;
    } else out.push(l);
  }
  if (!placed) out.push(`data: ${data}`);
  return out.join('\n') + '\n\n';
}
