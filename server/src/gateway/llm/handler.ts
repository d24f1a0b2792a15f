// Placeholder until the LLM data plane lands (issue 4): every LLM proxy request answers 501.
import type { ConfigStore } from '../config-store.ts';
import type { ProxyHandler } from '../server.ts';
import type { Services } from '../../services.ts';

export function createLlmGateway(_s: Services, _store: ConfigStore): ProxyHandler {
  return {
    async handle(req, res) {
      req.resume();
      res.writeHead(501, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'LLM proxying is not implemented yet' }));
    },
  };
}
