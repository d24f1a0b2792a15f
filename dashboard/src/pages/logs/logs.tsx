// Audit logs (#/logs): the allow/deny/error chart, the filter form and one page of events. Everything the page
// shows follows the hash query (query.ts).
import { api } from '../../api.ts';
import { EventsTable } from '../../components/events-table.tsx';
import { ErrorLine } from '../../components/form.tsx';
import { plural } from '../../components/format.ts';
import { useProxyNames } from '../../components/proxy-names.ts';
import { useApi } from '../../components/use-api.ts';
import { href, type Route } from '../../router.ts';
import { ActivityChart } from './activity-chart.tsx';
import { LogFilters } from './filters.tsx';
import { apiQuery, readQuery, toHash, type LogsQuery } from './query.ts';

/** Page and size come from the answer, not the hash: while the next page loads, the label still names the rows shown. */
function Pager(p: { q: LogsQuery; page: number; limit: number; total: number }) {
  const pages = Math.max(1, Math.ceil(p.total / p.limit));
  const link = (page: number) => href('/logs', toHash({ ...p.q, page }));
  return (
    <nav aria-label="Pages of events" class="pager">
      {p.page > 1 ? <a href={link(p.page - 1)} rel="prev">Previous page</a> : <span class="muted">Previous page</span>}
      <span aria-live="polite">Page {p.page} of {pages} · {plural(p.total, 'event')}</span>
      {p.page < pages ? <a href={link(p.page + 1)} rel="next">Next page</a> : <span class="muted">Next page</span>}
    </nav>
  );
}

export function LogsPage(p: { route: Route }) {
  const q = readQuery(p.route.query);
  const query = apiQuery(q);
  const logs = useApi(() => api.call('GET /api/logs', { query }), [JSON.stringify(query)]);
  const names = useProxyNames();
  return (
    <main class="logs">
      <h1>Logs</h1>
      <ActivityChart q={q} />
      <section aria-labelledby="events-h">
        <h2 id="events-h">Events</h2>
        <LogFilters key={p.route.query.toString()} q={q} />
        <ErrorLine message={logs.error} />
        {logs.data && (
          <>
            <EventsTable caption={`Events, most recent first (page ${logs.data.page})`} entries={logs.data.logs} names={names} />
            <Pager q={q} page={logs.data.page} limit={logs.data.limit} total={logs.data.total} />
          </>
        )}
      </section>
    </main>
  );
}
