// What every provider's stream reader shares: the collected text, the model the provider named, and the cheap path
// when text is not collected (only the events that carry usage are parsed; the others count toward the chars/4
// fallback by their payload length).
import type { TokenUsage } from '../../../pricing/cost.ts';
import { isObject, parseJson } from './json.ts';
import type { JsonObject, StreamReader } from './types.ts';

export abstract class BaseStreamReader implements StreamReader {
  protected parts: string[] = [];
  protected m: string | undefined;
  private dataChars = 0;

  constructor(protected readonly wantText = true) {}

  abstract onEvent(event: string, data: string): void;
  abstract usage(): TokenUsage | undefined;

  /**
   * The event's JSON object, or undefined when it is not one or need not be read: without text collection an event
   * is parsed only when `carriesUsage` (a substring or event-name check the caller makes, cheaper than parsing).
   */
  protected parsed(data: string, carriesUsage: boolean): JsonObject | undefined {
    if (!this.wantText) {
      this.dataChars += data.length;
      if (!carriesUsage) return undefined;
    }
    const e = parseJson(data);
    return isObject(e) ? e : undefined;
  }

  /** Counts an event's payload without reading it (a reader that defers parsing to `usage()`). */
  protected counted(data: string): void {
    this.dataChars += data.length;
  }

  protected addText(t: string | undefined): void {
    if (t && this.wantText) this.parts.push(t);
  }

  text() { return this.parts.join(''); }
  chars() { return this.wantText ? this.text().length : this.dataChars; }
  model() { return this.m; }
}
