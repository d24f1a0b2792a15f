// Every management route, registered once at start. One line per route module.
import { RESPONSES, bodySchemaOf, type RouteKey } from '@tollgate/contract';
import { Router, type Method } from '../../http/router.ts';
import type { Services } from '../../services.ts';
import { registerHealthRoutes } from './health.ts';
import { registerProfileRoutes } from './profile.ts';
import { registerAuthRoutes } from './auth.ts';
import { registerTwofaRoutes } from './twofa.ts';
import { registerKeysRoutes } from './keys.ts';
import { registerMcpRoutes } from './mcp.ts';
import { registerResourcesRoutes } from './resources.ts';
import { registerRulesRoutes } from './rules.ts';
import { registerLlmRoutes } from './llm.ts';
import { registerKeyBudgetsRoutes } from './key-budgets.ts';
import { registerAuditLogsRoutes } from './audit-logs.ts';
import { registerOverviewRoutes } from './overview.ts';
import { registerUsageRoutes } from './usage.ts';
import { registerConversationLogsRoutes } from './conversation-logs.ts';
import { registerOpenapiRoutes } from './openapi.ts';

export function buildRouter(s: Services): Router {
  const r = new Router();
  registerHealthRoutes(r, s);
  registerProfileRoutes(r, s);
  registerAuthRoutes(r, s);
  registerTwofaRoutes(r, s);
  registerKeysRoutes(r, s);
  registerMcpRoutes(r, s);
  registerResourcesRoutes(r, s);
  registerRulesRoutes(r, s);
  registerLlmRoutes(r, s);
  registerKeyBudgetsRoutes(r, s);
  registerAuditLogsRoutes(r, s);
  registerOverviewRoutes(r, s);
  registerUsageRoutes(r, s);
  registerConversationLogsRoutes(r, s);
  registerOpenapiRoutes(r, s);
  describeResponses(r);
  return r;
}

/**
 * Attaches the contract's body and response schemas (contract/src/api/routes.ts, the table the typed client is built
 * from). The two tables must name the same routes: a contract route the server does not serve, or a served route the
 * contract does not know (so no client could call it), is a start-up error.
 */
function describeResponses(r: Router): void {
  for (const [key, response] of Object.entries(RESPONSES)) {
    const [method, pattern] = key.split(' ') as [Method, string];
    if (!r.list().some((x) => x.method === method && x.pattern === pattern)) throw new Error(`the contract names a route the server does not serve: ${key}`);
    r.describe(method, pattern, { response, body: bodySchemaOf(key as RouteKey) });
  }
  const unknown = r.list().filter((x) => !(`${x.method} ${x.pattern}` in RESPONSES)).map((x) => `${x.method} ${x.pattern}`);
  if (unknown.length) throw new Error(`routes missing from the contract (contract/src/responses.ts): ${unknown.join(', ')}`);
}
