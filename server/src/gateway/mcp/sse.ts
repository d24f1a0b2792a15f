// Incremental Server-Sent Events framing for the MCP response stream. Events are cut at blank lines and handed on
// with their raw text, so an event no rule touches is forwarded byte for byte (ids, `retry`, comments and the empty
// priming event included). An event larger than the cap is not kept in memory: the caller gets its first and last
// few KB (enough to find the JSON-RPC id) and answers with a JSON-RPC error instead.
import { StringDecoder } from 'node:string_decoder';

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

export class SseSplitter {
  private buf = '';
  private pos = 0;
  private lines: string[] = [];
  private oversized = false;
  private head = '';
  private tail = '';
  private partialNonEmpty = false;
  private readonly decoder = new StringDecoder('utf8');

  constructor(private readonly maxEventChars: number) {}

  push(chunk: Buffer): SseEvent[] {
    this.buf += this.decoder.write(chunk);
    return this.scan(false);
  }

  end(): SseEvent[] {
    this.buf += this.decoder.end();
    const out = this.scan(true);
    // A stream cut in the middle of an event: pass the fragment on unchanged (the client sees what the server sent).
    if (!this.oversized && this.buf.length) out.push({ raw: this.buf, lines: [] });
    this.buf = '';
    return out;
  }

  private scan(final: boolean): SseEvent[] {
    const out: SseEvent[] = [];
    let evStart = 0;
    for (;;) {
      const i = eol(this.buf, this.pos);
      if (i < 0) break;
      let next = i + 1;
      if (this.buf.charCodeAt(i) === 13) {
        if (i + 1 >= this.buf.length && !final) break;
        if (this.buf.charCodeAt(i + 1) === 10) next = i + 2;
      }
      const line = this.buf.slice(this.pos, i);
      // In an oversized event the start of this line may have been dropped already: then it is not a field line.
      const continued = this.partialNonEmpty;
      const empty = line === '' && !continued;
      this.partialNonEmpty = false;
      if (this.oversized) this.tail = (this.tail + line + '\n').slice(-KEEP);
      this.pos = next;
      if (empty) {
        out.push(this.finishEvent(this.buf.slice(evStart, this.pos)));
        evStart = this.pos;
      } else if (!this.oversized || (!continued && line.length < 1024 && !isData(line))) this.lines.push(line);
    }
    if (this.oversized) {
      this.keepUnfinishedLineTail();
      return out;
    }
    this.buf = this.buf.slice(evStart);
    this.pos -= evStart;
    if (this.buf.length > this.maxEventChars) {
      this.oversized = true;
      this.head = this.buf.slice(0, KEEP);
      this.tail = this.buf.slice(Math.max(0, this.pos - KEEP), this.pos);
      // Keep the event's own fields (id, event, retry) for the replacement; drop the data.
      this.lines = this.lines.filter((l) => l.length < 1024 && !isData(l));
      this.keepUnfinishedLineTail();
    }
    return out;
  }

  /** In an oversized event: fold the unfinished line into the tail, keeping only its last character buffered (a lone \r may be half of \r\n). */
  private keepUnfinishedLineTail(): void {
    const rest = this.buf.slice(this.pos);
    if (rest.length > 1) {
      this.tail = (this.tail + rest.slice(0, -1)).slice(-KEEP);
      this.partialNonEmpty = true;
    }
    this.buf = rest.length > 1 ? rest.slice(-1) : rest;
    this.pos = 0;
  }

  private finishEvent(raw: string): SseEvent {
    if (this.oversized) {
      const ev: SseEvent = { lines: this.lines, oversized: { head: this.head, tail: this.tail } };
      this.lines = [];
      this.oversized = false;
      this.head = this.tail = '';
      return ev;
    }
    const lines = this.lines;
    this.lines = [];
    let data: string | undefined;
    for (const l of lines) {
      if (isData(l)) {
        const v = l.length <= 5 ? '' : l.charCodeAt(5) === 32 ? l.slice(6) : l.slice(5);
        data = data === undefined ? v : data + '\n' + v;
      }
    }
    return { raw, lines, data };
  }
}

const isData = (l: string) => l === 'data' || l.startsWith('data:');

function eol(s: string, from: number): number {
  const n = s.indexOf('\n', from);
  const r = s.indexOf('\r', from);
  if (r < 0) return n;
  if (n < 0) return r;
  return Math.min(n, r);
}

/** Re-serialises an event with a new data payload, keeping its other fields (id, event, retry, comments) in order. */
export function withData(ev: SseEvent, data: string): string {
  const out: string[] = [];
  let placed = false;
  for (const l of ev.lines) {
    if (isData(l)) {
      if (!placed) out.push(`data: ${data}`);
      placed = true;
    } else out.push(l);
  }
  if (!placed) out.push(`data: ${data}`);
  return out.join('\n') + '\n\n';
}
