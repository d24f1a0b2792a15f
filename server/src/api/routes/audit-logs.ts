// GET /api/logs and GET /api/logs/chart: the caller's audit events (spec "Audit logs, overview, health", Events).
import { chartRange, fillBuckets } from '../../audit/chart.ts';
import { chartQuerySchema, logsQuerySchema } from '@tollgate/contract';
import { parseQuery } from '../../audit/params.ts';
import { chartCounts, listEvents } from '../../audit/queries.ts';
import type { Router } from '../../http/router.ts';
import { unixNow, type Services } from '../../services.ts';

export function registerAuditLogsRoutes(r: Router, s: Services): void {
  r.add('GET', '/api/logs', 'user', async (ctx) => {
    const p = parseQuery(logsQuerySchema, ctx.query);
    const equal = { mcp_uuid: p.mcp_uuid, llm_uuid: p.llm_uuid, tool: p.tool, model: p.model };
    const { entries, total } = await listEvents(s.db, ctx.auth.userId, { eventTypes: p.event_type, equal, from: p.from, to: p.to, page: p.page, limit: p.limit });
    return { logs: entries, total, page: p.page, limit: p.limit };
  }, { summary: 'Audit events, most recent first (?page, limit, event_type, mcp_uuid, llm_uuid, tool, model, from, to)' });

  r.add('GET', '/api/logs/chart', 'user', async (ctx) => {
    const p = parseQuery(chartQuerySchema, ctx.query);
    const range = chartRange(p.bucket, unixNow(s.clock), p.from, p.to);
    return { buckets: fillBuckets(range, await chartCounts(s.db, ctx.auth.userId, range)) };
  }, { summary: 'Allow/deny/error counts per UTC hour or day (?bucket, from, to)' });
}
