// Placeholder until the MCP data plane lands (issue 3): every MCP proxy request answers 501.
import type { ConfigStore } from '../config-store.ts';
import type { ProxyHandler } from '../server.ts';
import type { Services } from '../../services.ts';

export function createMcpGateway(_s: Services, _store: ConfigStore): ProxyHandler {
  return {
    async handle(req, res) {
      req.resume();
      res.writeHead(501, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'MCP proxying is not implemented yet' }));
    },
  };
}
