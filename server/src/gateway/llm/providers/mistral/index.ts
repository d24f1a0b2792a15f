// Mistral: the OpenAI chat format on /v1/chat/completions, plus fill-in-the-middle (/v1/fim/completions) and
// embeddings. Upstream auth is `Authorization: Bearer`. Streams end with a chunk carrying `usage` on their own, and
// the API rejects unknown fields, so nothing is added to streaming requests.
import { obj, str } from '../json.ts';
import { ChatStreamReader, chatUsage, choicesText, maxTokens, openAiError, visitMessages, visitStrings } from '../openai/chat-format.ts';
import type { ProviderAdapter, RouteSpec } from '../types.ts';
import { modelAndStreamInBody } from '../body-model.ts';
import { filterIdList, modelRoutes } from '../model-list.ts';

/** What a Mistral proxy serves (files, batches, fine-tuning, agent management... are not: see openai/index.ts). */
const routes: readonly RouteSpec[] = [
  { method: 'POST', path: '/v1/chat/completions', endpoint: 'chat', model: 'body' },
  { method: 'POST', path: '/v1/fim/completions', endpoint: 'fim', model: 'body' },
  { method: 'POST', path: '/v1/agents/completions', endpoint: 'chat', model: 'upstream' },
  { method: 'POST', path: '/v1/embeddings', endpoint: 'embeddings', model: 'body' },
  ...modelRoutes('/v1'),
];

export const mistral: ProviderAdapter = {
  id: 'mistral',
  routes,
  filterModelList: filterIdList,
  nativeClientKey: () => undefined,
  authHeader: (key) => ['authorization', `Bearer ${key}`],
  ...modelAndStreamInBody,
  askStreamUsage: () => false,
  maxOutputTokens: (_ep, body) => maxTokens(body, 'max_tokens'),
  visitPrompt(ep, body, visit) {
    switch (ep.kind) {
      case 'chat': return visitMessages(body, visit);
      case 'fim': {
        const a = visitStrings(body, 'prompt', visit);
        return visitStrings(body, 'suffix', visit) || a;
      }
      case 'embeddings': return visitStrings(body, 'input', visit);
      default: return false;
    }
  },
  usageKey: 'usage',
  usageFromObject: (_ep, u) => chatUsage(u),
  usageFromJson: (_ep, body) => chatUsage(obj(body, 'usage')),
  completionFromJson: (ep, body) => (ep.kind === 'embeddings' ? '' : choicesText(body)),
  modelFromJson: (body) => str(body, 'model'),
  streamReader: (_ep, opts) => new ChatStreamReader(opts?.text ?? true),
  errorFromJson: openAiError,
};
