// The OpenAI chat-completions wire format (also spoken by Mistral): messages, usage, choices and stream chunks.
import type { SkimFilter } from '../../../upstream/sse-skim.ts';
import type { TokenUsage } from '../../../../pricing/cost.ts';
import { arr, count, firstCount, isObject, mapContent, obj, str } from '../json.ts';
import type { Json, JsonObject, TextRole, TextVisitor } from '../types.ts';
import { BaseStreamReader } from '../stream-reader.ts';

const TEXT_PARTS = ['text', 'input_text', 'output_text'];

export function roleOf(role: string | undefined): TextRole {
  switch (role) {
    case 'user': return 'user';
    case 'system': case 'developer': return 'system';
    case 'assistant': return 'assistant';
    case 'tool': case 'function': return 'tool';
    default: return 'other';
  }
}

/** messages[].content, strings or text parts. */
export function visitMessages(body: JsonObject, visit: TextVisitor): boolean {
  let changed = false;
  for (const m of arr(body, 'messages') ?? []) {
    if (!isObject(m)) continue;
    const role = roleOf(str(m, 'role'));
    const next = mapContent(m.content, (t) => visit(t, role), TEXT_PARTS);
    if (next !== undefined) {
      m.content = next;
      changed = true;
    }
  }
  return changed;
}

/** A string or an array of strings (embeddings input, legacy completions prompt), all user text. */
export function visitStrings(body: JsonObject, key: string, visit: TextVisitor): boolean {
  const v = body[key];
  if (typeof v === 'string') {
    const r = visit(v, 'user');
    if (r !== undefined && r !== v) {
      body[key] = r;
      return true;
    }
    return false;
  }
  if (!Array.isArray(v)) return false;
  let changed = false;
  v.forEach((item, i) => {
    if (typeof item !== 'string') return;
    const r = visit(item, 'user');
    if (r !== undefined && r !== item) {
      v[i] = r;
      changed = true;
    }
  });
  return changed;
}

/** `usage` of chat completions, embeddings and (renamed fields) the responses API. */
export function chatUsage(usage: Json | undefined): TokenUsage | undefined {
  if (!isObject(usage)) return undefined;
  const input = firstCount(usage, 'prompt_tokens', 'input_tokens');
  const output = firstCount(usage, 'completion_tokens', 'output_tokens') ?? 0;
  if (input === undefined) return undefined;
  const details = obj(usage, 'prompt_tokens_details') ?? obj(usage, 'input_tokens_details');
  return { inputTokens: input, cachedInputTokens: count(details, 'cached_tokens') ?? 0, outputTokens: output };
}

/** Generated text of a chat completion (choices[].message.content) or legacy completion (choices[].text). */
export function choicesText(body: Json): string {
  let out = '';
  for (const c of arr(body, 'choices') ?? []) {
    const content = obj(c, 'message')?.content;
    if (typeof content === 'string') out += content;
    else out += str(c, 'text') ?? '';
  }
  return out;
}

export function maxTokens(body: JsonObject | undefined, ...keys: string[]): number | undefined {
  return body ? firstCount(body, ...keys) : undefined;
}

const CHAT_USAGE_EVENTS: SkimFilter = { dataMarker: '"usage":{', done: '[DONE]' };

/** Reads chat-completion chunks: text deltas, the final usage chunk, the model. `[DONE]` ends the stream. */
export class ChatStreamReader extends BaseStreamReader {
  private u: TokenUsage | undefined;
  // Without text collection only the chunk carrying usage is parsed (usage is null on the others).
  readonly usageEvents = CHAT_USAGE_EVENTS;

  onEvent(event: string, data: string): void {
    if (data === this.usageEvents.done || !data) return;
    const chunk = this.parsed(event, data);
    if (!chunk) return;
    this.m ??= str(chunk, 'model');
    const u = chatUsage(chunk.usage);
    if (u) this.u = u;
    if (this.wantText) this.collectText(chunk);
  }

  private collectText(chunk: JsonObject): void {
    for (const c of arr(chunk, 'choices') ?? []) {
      const delta = obj(c, 'delta');
      this.addText(delta ? str(delta, 'content') : str(c, 'text'));
    }
  }

  usage() { return this.u; }
}

/** `{ error: { type, code } }` (OpenAI) or `{ object: 'error', type, code }` (Mistral). */
export function openAiError(body: Json): { type?: string; code?: string } | undefined {
  if (!isObject(body)) return undefined;
  const e = obj(body, 'error') ?? (body.object === 'error' ? body : undefined);
  if (!e) return undefined;
  const code = e.code;
  return { type: str(e, 'type'), code: typeof code === 'string' || typeof code === 'number' ? String(code) : undefined };
}
