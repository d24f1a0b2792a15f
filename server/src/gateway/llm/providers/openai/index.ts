// OpenAI: chat completions, the responses API, legacy completions and embeddings. Client key: Bearer (the caller
// reads it); upstream: `Authorization: Bearer <provider key>`. Streaming chat completions report usage only in a
// final chunk the client must ask for, so the gateway sets stream_options.include_usage.
import type { SkimFilter } from '../../../upstream/sse-skim.ts';
import type { TokenUsage } from '../../../../pricing/cost.ts';
import { arr, isObject, obj, str } from '../json.ts';
import type { Json, JsonObject, ProviderAdapter, RouteSpec, TextVisitor } from '../types.ts';
import { BaseStreamReader } from '../stream-reader.ts';
import { ChatStreamReader, chatUsage, choicesText, maxTokens, openAiError, visitMessages, visitStrings } from './chat-format.ts';
import { modelAndStreamInBody } from '../body-model.ts';
import { filterIdList, modelRoutes } from '../model-list.ts';

/**
 * What an OpenAI proxy serves. Files, batches, fine-tuning, stored completions and responses, assistants, the
 * organization API... are not here: they are not metered and not tied to a model, so a key granted one model would
 * reach the whole account with the provider key.
 */
const routes: readonly RouteSpec[] = [
  { method: 'POST', path: '/v1/chat/completions', endpoint: 'chat', model: 'body' },
  { method: 'POST', path: '/v1/responses', endpoint: 'responses', model: 'body' },
  { method: 'POST', path: '/v1/completions', endpoint: 'completions', model: 'body' },
  { method: 'POST', path: '/v1/embeddings', endpoint: 'embeddings', model: 'body' },
  ...modelRoutes('/v1'),
];

/** Responses API input: a string, or items with a role and string-or-parts content; plus `instructions`. */
function visitResponsesInput(body: JsonObject, visit: TextVisitor): boolean {
  let changed = false;
  if (typeof body.instructions === 'string') {
    const r = visit(body.instructions, 'system');
    if (r !== undefined && r !== body.instructions) {
      body.instructions = r;
      changed = true;
    }
  }
  if (typeof body.input === 'string') return visitStrings(body, 'input', visit) || changed;
  const items = arr(body, 'input') ?? [];
  const asMessages = { messages: items.filter((i) => isObject(i) && typeof i.role === 'string') };
  return visitMessages(asMessages, visit) || changed;
}

function responsesText(body: Json): string {
  let out = '';
  for (const item of arr(body, 'output') ?? []) {
    for (const part of arr(item, 'content') ?? []) {
      if (str(part, 'type') === 'output_text') out += str(part, 'text') ?? '';
    }
  }
  return out;
}

const RESPONSES_USAGE_EVENTS: SkimFilter = { names: ['response.completed'], dataMarker: '"response.completed"' };

/** Responses API stream: typed events; text in `response.output_text.delta`, usage in `response.completed`. */
class ResponsesStreamReader extends BaseStreamReader {
  private u: TokenUsage | undefined;
  readonly usageEvents = RESPONSES_USAGE_EVENTS;

  onEvent(event: string, data: string): void {
    const e = this.parsed(event, data);
    if (!e) return;
    const type = str(e, 'type') ?? event;
    if (type === 'response.output_text.delta') {
      this.addText(str(e, 'delta'));
      return;
    }
    const response = obj(e, 'response');
    if (!response) return;
    this.m = str(response, 'model') ?? this.m;
    const u = chatUsage(response.usage);
    if (u) this.u = u;
  }

  usage() { return this.u; }
}

export const openai: ProviderAdapter = {
  id: 'openai',
  routes,
  filterModelList: filterIdList,
  nativeClientKey: () => undefined,
  authHeader: (key) => ['authorization', `Bearer ${key}`],
  ...modelAndStreamInBody,
  askStreamUsage(ep, body) {
    if (ep.kind !== 'chat' && ep.kind !== 'completions') return false;
    const opts = obj(body, 'stream_options');
    if (opts?.include_usage === true) return false;
    body.stream_options = { ...(opts ?? {}), include_usage: true };
    return true;
  },
  maxOutputTokens: (_ep, body) => maxTokens(body, 'max_completion_tokens', 'max_tokens', 'max_output_tokens'),
  visitPrompt(ep, body, visit) {
    switch (ep.kind) {
      case 'chat': return visitMessages(body, visit);
      case 'responses': return visitResponsesInput(body, visit);
      case 'completions': return visitStrings(body, 'prompt', visit);
      case 'embeddings': return visitStrings(body, 'input', visit);
      default: return false;
    }
  },
  usageKey: 'usage',
  usageFromObject: (_ep, u) => chatUsage(u),
  usageFromJson: (_ep, body) => chatUsage(obj(body, 'usage')),
  completionFromJson: (ep, body) => (ep.kind === 'responses' ? responsesText(body) : ep.kind === 'embeddings' ? '' : choicesText(body)),
  modelFromJson: (body) => str(body, 'model'),
  streamReader: (ep, opts) => (ep.kind === 'responses' ? new ResponsesStreamReader(opts?.text ?? true) : new ChatStreamReader(opts?.text ?? true)),
  errorFromJson: openAiError,
};
