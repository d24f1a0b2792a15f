// Firewall rules of MCP and LLM proxies (spec "Firewall rules"). PUT replaces the whole ordered array atomically:
// every rule is validated for the proxy's kind first (400 naming the rule index), then the array is stored in the
// proxy's gateway plugin in one statement. A rejected PUT leaves the stored rules untouched.
import type { Queryable } from '../../db/db.ts';
import { HttpError, Msg } from '../../http/errors.ts';
import type { AuthedContext, Router } from '../../http/router.ts';
import { validateRules } from '../../gateway/rules/validate.ts';
import { type ProxyKind } from '@tollgate/contract';
import { getRules, setRules } from '../../proxies/gateway-objects.ts';
import { isUuid, requireLlm, requireMcp } from '../../proxies/ownership.ts';
import { unixNow, type Services } from '../../services.ts';

const KINDS: Record<ProxyKind, { table: 'mcp_servers' | 'llm_proxies'; notFound: string; require: typeof requireMcp }> = {
  mcp: { table: 'mcp_servers', notFound: Msg.mcpNotFound, require: requireMcp },
  llm: { table: 'llm_proxies', notFound: Msg.llmNotFound, require: requireLlm },
};

/** Locks the owned proxy row for the rest of the transaction (a concurrent delete makes this a 404). */
async function lockOwned(q: Queryable, kind: ProxyKind, userId: string, id: string): Promise<void> {
  const k = KINDS[kind];
  const rows = isUuid(id) ? await q.query(`SELECT id FROM ${k.table} WHERE id = $1 AND user_id = $2 FOR UPDATE`, [id, userId]) : [];
  if (!rows.length) throw new HttpError(404, k.notFound);
}

async function readRules(s: Services, kind: ProxyKind, ctx: AuthedContext) {
  const id = ctx.params.id!;
  await KINDS[kind].require(s.db, ctx.auth.userId, id);
  return { rules: await getRules(s.db, id) };
}

async function replaceRules(s: Services, kind: ProxyKind, ctx: AuthedContext) {
  const id = ctx.params.id!;
  await KINDS[kind].require(s.db, ctx.auth.userId, id);
  const input = ((await ctx.json()) as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(input)) throw new HttpError(400, 'rules: must be an array of rules');
  const rules = validateRules(kind, input);
  const version = await s.db.tx(async (q) => {
    await lockOwned(q, kind, ctx.auth.userId, id);
    return setRules(q, id, rules, unixNow(s.clock));
  });
  await s.configChanged(version);
  return { rules };
}

export function registerRulesRoutes(r: Router, s: Services): void {
  for (const kind of ['mcp', 'llm'] as const) {
    const what = kind === 'mcp' ? 'an MCP server' : 'an LLM proxy';
    r.add('GET', `/api/${kind}/:id/rules`, 'user', (ctx) => readRules(s, kind, ctx), { summary: `Firewall rules of ${what}` });
    r.add('PUT', `/api/${kind}/:id/rules`, 'user', (ctx) => replaceRules(s, kind, ctx),
      { summary: `Replace the whole rule array of ${what}` });
  }
}
