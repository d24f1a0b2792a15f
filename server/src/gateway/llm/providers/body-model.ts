// The model and the stream flag as top-level body fields (`model`, `stream: true`): how openai, anthropic and
// mistral carry them. Gemini puts both in the path and has its own.
import { str } from './json.ts';
import type { ProviderAdapter } from './types.ts';

export const modelAndStreamInBody: Pick<ProviderAdapter, 'readModel' | 'writeModel' | 'isStream'> = {
  readModel: (_ep, body) => str(body, 'model'),
  writeModel(_ep, body, pathname, model) {
    if (body) body.model = model;
    return pathname;
  },
  isStream: (_ep, body) => body?.stream === true,
};
