// Anthropic Messages API. Client key: Bearer or the native `x-api-key`; upstream: `x-api-key: <provider key>`.
// Usage: `input_tokens` counts only uncached input, so total input = input + cache_creation + cache_read, of which
// cache_read is the cached part and cache_creation the part written to the cache (priced as a cache write; the
// `cache_creation.ephemeral_1h_input_tokens` share at the 1-hour rate). Streams report input in `message_start` and
// cumulative output in `message_delta`.
import type { SkimFilter } from '../../../upstream/sse-skim.ts';
import type { TokenUsage } from '../../../../pricing/cost.ts';
import { arr, count, isObject, mapContent, obj, str } from '../json.ts';
import type { Endpoint, Json, JsonObject, ProviderAdapter, RouteSpec, TextRole, TextVisitor } from '../types.ts';
import { BaseStreamReader } from '../stream-reader.ts';
import { modelAndStreamInBody } from '../body-model.ts';
import { filterIdList, modelRoutes } from '../model-list.ts';

/** What an Anthropic proxy serves (message batches, files, skills, the admin API... are not: see openai/index.ts). */
const routes: readonly RouteSpec[] = [
  { method: 'POST', path: '/v1/messages', endpoint: 'messages', model: 'body' },
  { method: 'POST', path: '/v1/messages/count_tokens', endpoint: 'count_tokens', model: 'body', free: true },
  ...modelRoutes('/v1'),
];

function messagesUsage(u: Json | undefined): TokenUsage | undefined {
  if (!isObject(u)) return undefined;
  const input = count(u, 'input_tokens');
  if (input === undefined) return undefined;
  const cacheRead = count(u, 'cache_read_input_tokens') ?? 0;
  const cacheWrite = count(u, 'cache_creation_input_tokens') ?? 0;
  const split = obj(u, 'cache_creation');
  const hour = split ? count(split, 'ephemeral_1h_input_tokens') ?? 0 : 0;
  return {
    inputTokens: input + cacheRead + cacheWrite, cachedInputTokens: cacheRead, cacheWriteInputTokens: cacheWrite,
    ...(hour ? { cacheWrite1hInputTokens: hour } : {}), outputTokens: count(u, 'output_tokens') ?? 0,
  };
}

function visitBlocks(holder: JsonObject, key: string, role: TextRole, visit: TextVisitor): boolean {
  let changed = false;
  const blocks = holder[key];
  const next = mapContent(blocks, (t) => visit(t, role), ['text']);
  if (next !== undefined) {
    holder[key] = next;
    changed = true;
  }
  // tool_result blocks carry their own string-or-blocks content (the tool's output, sent as part of the prompt).
  if (Array.isArray(blocks)) {
    for (const b of blocks) {
      if (isObject(b) && b.type === 'tool_result' && visitBlocks(b, 'content', 'tool', visit)) changed = true;
    }
  }
  return changed;
}

function visitPrompt(_ep: Endpoint, body: JsonObject, visit: TextVisitor): boolean {
  let changed = visitBlocks(body, 'system', 'system', visit);
  for (const m of arr(body, 'messages') ?? []) {
    if (!isObject(m)) continue;
    const role: TextRole = m.role === 'user' ? 'user' : m.role === 'assistant' ? 'assistant' : 'other';
    if (visitBlocks(m, 'content', role, visit)) changed = true;
  }
  return changed;
}

function contentText(message: Json): string {
  let out = '';
  for (const b of arr(message, 'content') ?? []) if (str(b, 'type') === 'text') out += str(b, 'text') ?? '';
  return out;
}

const MESSAGES_USAGE_EVENTS: SkimFilter = { names: ['message_start', 'message_delta'] };

class MessagesStreamReader extends BaseStreamReader {
  private input: TokenUsage | undefined;
  private output: number | undefined;
  // Usage lives in message_start and message_delta; text deltas are parsed only when text is collected.
  readonly usageEvents = MESSAGES_USAGE_EVENTS;

  onEvent(event: string, data: string): void {
    const e = this.parsed(event, data);
    if (!e) return;
    switch (str(e, 'type') ?? event) {
      case 'message_start': return this.onMessageStart(e);
      case 'content_block_delta': return this.onContentDelta(e);
      case 'message_delta': return this.onMessageDelta(e);
    }
  }

  private onMessageStart(e: JsonObject): void {
    const msg = obj(e, 'message');
    this.m = str(msg, 'model') ?? this.m;
    this.input = messagesUsage(obj(msg, 'usage')) ?? this.input;
  }

  private onContentDelta(e: JsonObject): void {
    this.addText(str(obj(e, 'delta'), 'text'));
  }

  private onMessageDelta(e: JsonObject): void {
    const u = obj(e, 'usage');
    this.output = count(u, 'output_tokens') ?? this.output;
    // Newer API versions repeat the input counts here; prefer them when present.
    if (u && count(u, 'input_tokens') !== undefined) this.input = messagesUsage(u) ?? this.input;
  }

  usage(): TokenUsage | undefined {
    if (!this.input && this.output === undefined) return undefined;
    const base = this.input ?? { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
    return { ...base, outputTokens: this.output ?? base.outputTokens };
  }
}

export const anthropic: ProviderAdapter = {
  id: 'anthropic',
  routes,
  filterModelList: filterIdList,
  nativeClientKey(headers) {
    const v = headers['x-api-key'];
    return typeof v === 'string' && v ? v : undefined;
  },
  authHeader: (key) => ['x-api-key', key],
  ...modelAndStreamInBody,
  askStreamUsage: () => false,
  maxOutputTokens: (_ep, body) => count(body, 'max_tokens'),
  visitPrompt,
  usageKey: 'usage',
  usageFromObject: (ep, u) => (ep.kind === 'count_tokens' ? undefined : messagesUsage(u)),
  usageFromJson: (ep, body) => (ep.kind === 'count_tokens' ? undefined : messagesUsage(obj(body, 'usage'))),
  completionFromJson: (_ep, body) => contentText(body),
  modelFromJson: (body) => str(body, 'model'),
  streamReader: (_ep, opts) => new MessagesStreamReader(opts?.text ?? true),
  errorFromJson(body) {
    const e = obj(body, 'error');
    return e ? { type: str(e, 'type') } : undefined;
  },
};
