// The accounting tap on a response: fed the bytes exactly as they are forwarded to the client (after each write),
// it reads usage and generated text from the JSON body or the SSE events. It never holds more than the owner's LLM
// body cap (spec: private:permissions:llm:max_resp_body_kb, default 2048 KB): past the cap it stops parsing, and
// the tokens are estimated as characters / 4 (the stream itself is not affected).
import type { TokenUsage } from '../../pricing/cost.ts';
import { lastObjectOf, parseJson } from './providers/json.ts';
import type { Endpoint, Json, ProviderAdapter, StreamReader } from './providers/index.ts';
import type { ProviderError } from './providers/types.ts';
import { SseParser } from '../upstream/sse.ts';
import { SseSkimmer } from '../upstream/sse-skim.ts';

export interface Metered {
  /** Usage the provider reported, if it was read. */
  usage: TokenUsage | undefined;
  /** Generated text (JSON answer or stream deltas) when it was collected; '' past the cap. */
  text: string;
  /** Characters for the chars/4 fallback (see StreamReader.chars). */
  chars: number;
  /** The whole JSON body (for static_cache), only when it fit under the cap. */
  jsonText: string | undefined;
  error: ProviderError | undefined;
  /** Bytes the upstream sent. */
  bytes: number;
  overCap: boolean;
  /** A successful JSON answer that is not JSON (read whole, under the cap): relayed as it came, charged by estimate. */
  malformed?: true;
}

export interface SseTap {
  push(chunk: Buffer): void;
  end(): void;
}

/**
 * What feeds a stream reader the response's events. With text collected, every event is decoded; without, only the
 * events that carry usage are, and the others are counted on the bytes (gateway/upstream/sse-skim.ts), unless every
 * event carries it.
 */
export function sseTap(reader: StreamReader, text: boolean, maxEventChars: number): SseTap {
  const onEvent = (e: string, d: string) => reader.onEvent(e, d);
  return text || reader.usageInEveryEvent ? new SseParser(onEvent, maxEventChars) : new SseSkimmer(reader.usageEvents, onEvent, (n) => reader.countChars(n), maxEventChars);
}

export class ResponseMeter {
  private bytes = 0;
  private overCap = false;
  private readonly chunks: Buffer[] = [];
  private readonly sse: SseTap | undefined;
  private readonly reader: StreamReader | undefined;
  private readonly wantText: boolean;

  constructor(
    private readonly adapter: ProviderAdapter,
    private readonly ep: Endpoint,
    private readonly capBytes: number,
    o: { sse: boolean; text: boolean },
  ) {
    this.wantText = o.text;
    if (o.sse) {
      const reader = adapter.streamReader(ep, { text: o.text });
      this.reader = reader;
      this.sse = sseTap(reader, o.text, capBytes);
    }
  }

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.overCap) return;
    if (this.bytes > this.capBytes) {
      this.overCap = true;
      this.chunks.length = 0;
      return;
    }
    if (this.sse) this.sse.push(chunk);
    else this.chunks.push(chunk);
  }

  /** Usage reported so far and characters delivered so far (all bytes past the cap or for a JSON answer). */
  progress(): { usage: TokenUsage | undefined; chars: number } {
    if (this.overCap || !this.reader) return { usage: undefined, chars: this.bytes };
    return { usage: this.reader.usage(), chars: this.reader.chars() };
  }

  /** `status` of the answer: successful JSON answers get the fast path (usage read alone, no full parse). */
  finish(status = 200): Metered {
    if (this.overCap) return this.metered(undefined, '', this.bytes, undefined);
    if (this.sse && this.reader) {
      this.sse.end();
      return this.metered(this.reader.usage(), this.reader.text(), this.reader.chars(), undefined);
    }
    return this.finishJson(status);
  }

  /** The result as one literal of a fixed shape (a spread of shared fields built a larger object per request). */
  private metered(usage: TokenUsage | undefined, text: string, chars: number, jsonText: string | undefined): Metered {
    return { usage, text, chars, jsonText, error: undefined, bytes: this.bytes, overCap: this.overCap };
  }

  /** A JSON answer (not over the cap): usage alone when nothing else is wanted, else the parsed body's parts. */
  private finishJson(status: number): Metered {
    const jsonText = this.chunks.length === 1 ? this.chunks[0]!.toString('utf8') : Buffer.concat(this.chunks).toString('utf8');
    if (!this.wantText && status < 400) {
      const inner = lastObjectOf(jsonText, this.adapter.usageKey);
      const usage = inner === undefined ? undefined : this.adapter.usageFromObject(this.ep, inner);
      if (usage) return this.metered(usage, '', 0, jsonText);
    }
    const body: Json | undefined = parseJson(jsonText);
    if (body === undefined) {
      const m = this.metered(undefined, '', jsonText.length, undefined);
      if (status < 400) m.malformed = true;
      return m;
    }
    const usage = this.adapter.usageFromJson(this.ep, body);
    // The text is read when someone wants it, or when the chars/4 fallback needs its length.
    const text = this.wantText || !usage ? this.adapter.completionFromJson(this.ep, body) : '';
    const m = this.metered(usage, text, text.length, jsonText);
    if (!usage) m.error = this.adapter.errorFromJson(body);
    return m;
  }
}

/**
 * What a stream has delivered so far, read without ending it (a gateway records it while the stream runs, so that
 * the part a client received is charged if the gateway dies before the end): the provider's usage when it already
 * reported output tokens, else the chars/4 estimate of the prompt and of what went out.
 */
export function deliveredUsage(meter: ResponseMeter, promptBytes: number): { usage: TokenUsage; estimated: boolean } {
  const d = meter.progress();
  if (d.usage && d.usage.outputTokens > 0) return { usage: d.usage, estimated: false };
  const input = d.usage?.inputTokens || Math.ceil(promptBytes / 4);
  return { usage: { inputTokens: input, cachedInputTokens: d.usage?.cachedInputTokens ?? 0, outputTokens: Math.ceil(d.chars / 4) }, estimated: true };
}

/** The fallback when usage could not be read: prompt bytes / 4 in, generated characters (or all bytes) / 4 out. */
export function estimateUsage(promptBytes: number, m: Metered): TokenUsage {
  const outChars = m.overCap ? m.bytes : m.chars;
  return { inputTokens: Math.ceil(promptBytes / 4), cachedInputTokens: 0, outputTokens: Math.ceil(outChars / 4) };
}
