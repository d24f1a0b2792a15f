// What every provider's stream reader shares: the collected text, the model the provider named, and the cheap path
// when text is not collected (only the events that carry usage are parsed; the others count toward the chars/4
// fallback by their payload length).
import type { TokenUsage } from '../../../pricing/cost.ts';
import type { SkimFilter } from '../../upstream/sse-skim.ts';
import { isObject, parseJson } from './json.ts';
import type { JsonObject, StreamReader } from './types.ts';

export abstract class BaseStreamReader implements StreamReader {
  protected parts: string[] = [];
  protected m: string | undefined;
  private dataChars = 0;

  constructor(protected readonly wantText = true) {}

  abstract readonly usageEvents: SkimFilter;
  abstract onEvent(event: string, data: string): void;
  abstract usage(): TokenUsage | undefined;

  /** Whether an event is one of `usageEvents` (the only ones read when text is not collected). */
  protected carriesUsage(event: string, data: string): boolean {
    const f = this.usageEvents;
    return (f.names !== undefined && f.names.includes(event)) || (f.dataMarker !== undefined && data.includes(f.dataMarker));
  }

  /**
   * The event's JSON object, or undefined when it is not one or need not be read: without text collection an event
   * is parsed only when it carries usage (a substring or event-name check, cheaper than parsing).
   */
  protected parsed(event: string, data: string): JsonObject | undefined {
    if (!this.wantText) {
      this.dataChars += data.length;
      if (!this.carriesUsage(event, data)) return undefined;
    }
    const e = parseJson(data);
    return isObject(e) ? e : undefined;
  }

  countChars(n: number): void {
    this.dataChars += n;
  }

  protected addText(t: string | undefined): void {
    if (t && this.wantText) this.parts.push(t);
  }

  text() { return this.parts.join(''); }
  chars() { return this.wantText ? this.text().length : this.dataChars; }
  model() { return this.m; }
}
