// GET /api/overview (aggregate counts) and GET /api/overview/feed (the most recent audit entries).
import { feedQuerySchema } from '@tollgate/contract';
import { parseQuery } from '../../audit/params.ts';
import { overviewCounts, recentEvents } from '../../audit/queries.ts';
import type { Router } from '../../http/router.ts';
import { unixNow, type Services } from '../../services.ts';

const DAY_S = 86_400;

export function registerOverviewRoutes(r: Router, s: Services): void {
  r.add('GET', '/api/overview', 'user', async (ctx) => overviewCounts(s.db, ctx.auth.userId, unixNow(s.clock) - DAY_S),
    { summary: 'Counts of proxies, keys, active rules and last-24h traffic outcomes' });

  r.add('GET', '/api/overview/feed', 'user', async (ctx) => {
    const { limit } = parseQuery(feedQuerySchema, ctx.query);
    return { entries: await recentEvents(s.db, ctx.auth.userId, limit) };
  }, { summary: 'The most recent audit entries (?limit, default 20, at most 100)' });
}
