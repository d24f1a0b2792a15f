// An incremental Server-Sent Events parser for the accounting tap: fed the response bytes exactly as they are
// forwarded, it reports each complete event (name, data). It only reads; the client gets the original bytes.
// Memory is bounded: an event larger than `maxEventBytes` is skipped (its bytes still reach the client).
import { StringDecoder } from 'node:string_decoder';

export type SseHandler = (event: string, data: string) => void;

export class SseParser {
  private readonly decoder = new StringDecoder('utf8');
  private buf = '';
  private event = '';
  private data: string[] = [];
  private dataChars = 0;
  private skipping = false;
  private lastWasCr = false;

  constructor(private readonly onEvent: SseHandler, private readonly maxEventBytes: number) {}

  push(chunk: Buffer): void {
    let text = this.decoder.write(chunk);
    // A CRLF split across chunks: the LF belongs to the CR already handled.
    if (this.lastWasCr && text.startsWith('\n')) text = text.slice(1);
    this.lastWasCr = text.endsWith('\r');
    this.buf += text;
    let start = 0;
    for (;;) {
      const nl = this.nextBreak(start);
      if (nl < 0) break;
      this.line(this.buf.slice(start, nl));
      start = nl + (this.buf[nl] === '\r' && this.buf[nl + 1] === '\n' ? 2 : 1);
    }
    this.buf = this.buf.slice(start);
    if (this.buf.length > this.maxEventBytes) {
      // One unterminated line longer than the cap: drop it and the event it belongs to.
      this.buf = '';
      this.skipping = true;
    }
  }

  /** Dispatches a last event that had no blank line after it. */
  end(): void {
    this.buf += this.decoder.end();
    if (this.buf) this.line(this.buf);
    this.buf = '';
    this.line('');
  }

  private nextBreak(from: number): number {
    const n = this.buf.indexOf('\n', from);
    const r = this.buf.indexOf('\r', from);
    if (r < 0) return n;
    if (n < 0) return r === this.buf.length - 1 ? -1 : r; // a trailing CR may be the first half of CRLF
    return Math.min(n, r);
  }

  private line(line: string): void {
    if (line === '') {
      if (!this.skipping && this.data.length) this.onEvent(this.event || 'message', this.data.join('\n'));
      this.event = '';
      this.data = [];
      this.dataChars = 0;
      this.skipping = false;
      return;
    }
    if (this.skipping || line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') {
      this.dataChars += value.length;
      if (this.dataChars > this.maxEventBytes) {
        this.skipping = true;
        this.data = [];
        return;
      }
      this.data.push(value);
    }
  }
}
