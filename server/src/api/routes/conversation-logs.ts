// Conversation logs of an LLM proxy (spec "LLM conversation logs"): list (most recent first, `limit`, `before=<log
// id>` cursor), one record decrypted, bulk delete (`before=<timestamp>` or `all=true`). Logs exist only while the
// proxy has logConversations on; they are sealed at rest and kept 7 days (conversation-logs/store.ts).
import { HttpError, Msg } from '../../http/errors.ts';
import type { AuthedContext, Router } from '../../http/router.ts';
import { isUuid } from '../../proxies/ownership.ts';
import { getOwnedLlm } from '../../llm-admin/llm-proxy-store.ts';
import { deleteLogs, getLog, listLogs, type LogEntry } from '../../conversation-logs/store.ts';
import { microToCents } from '../../pricing/cost.ts';
import type { Services } from '../../services.ts';
import { intParam } from './usage.ts';

export const LOG_NOT_FOUND = 'Log not found';

function entryView(e: LogEntry) {
  return {
    id: e.id,
    timestamp: Math.floor(e.tsMs / 1000),
    model: e.model,
    requestSummary: e.requestSummary,
    responseSummary: e.responseSummary,
    tokens: e.inputTokens + e.outputTokens,
    inputTokens: e.inputTokens,
    cachedInputTokens: e.cachedInputTokens,
    outputTokens: e.outputTokens,
    costCents: microToCents(e.costMicroCents),
    pricingVersion: e.pricingVersion,
    status: e.status,
    streamed: e.streamed,
    credentialId: e.credentialId || null,
  };
}

async function list(s: Services, ctx: AuthedContext) {
  const llm = await getOwnedLlm(s.db, ctx.auth.userId, ctx.params.id!);
  const limit = intParam(ctx.query, 'limit', { dflt: 50, min: 1, max: 500 });
  const before = ctx.query.get('before') || undefined;
  if (before !== undefined && !isUuid(before)) throw new HttpError(400, 'before: must be a log id');
  const logs = await listLogs(s.db, s.secrets, llm.id, { limit, before, nowMs: s.clock.nowMs() });
  return { logs: logs.map(entryView) };
}

async function one(s: Services, ctx: AuthedContext) {
  const llm = await getOwnedLlm(s.db, ctx.auth.userId, ctx.params.id!);
  const id = ctx.params.logId!;
  const log = isUuid(id) ? await getLog(s.db, s.secrets, llm.id, { id, nowMs: s.clock.nowMs() }) : undefined;
  if (!log) throw new HttpError(404, LOG_NOT_FOUND);
  return { ...entryView(log), prompt: log.prompt, completion: log.completion };
}

async function remove(s: Services, ctx: AuthedContext) {
  const llm = await getOwnedLlm(s.db, ctx.auth.userId, ctx.params.id!);
  const before = ctx.query.get('before');
  let cutoff: number | 'all';
  if (before !== null) {
    if (!/^\d{1,12}$/.test(before)) throw new HttpError(400, Msg.badBefore);
    cutoff = Number(before) * 1000;
  } else if (ctx.query.get('all') === 'true') cutoff = 'all';
  else throw new HttpError(400, Msg.badBefore);
  return { deleted: await deleteLogs(s.db, llm.id, cutoff) };
}

export function registerConversationLogsRoutes(r: Router, s: Services): void {
  r.add('GET', '/api/llm/:id/logs', 'user', (ctx) => list(s, ctx),
    { summary: 'Conversation logs, most recent first (query limit, default 50; before=<log id> for the next page)' });
  r.add('GET', '/api/llm/:id/logs/:logId', 'user', (ctx) => one(s, ctx),
    { summary: 'One conversation log with its prompt and completion, decrypted' });
  r.add('DELETE', '/api/llm/:id/logs', 'user', (ctx) => remove(s, ctx),
    { summary: 'Delete conversation logs: before=<Unix seconds> or all=true' });
}
