// The overview (#/): counts of what the caller owns and of the last 24 hours of traffic, the health of the services
// behind the API, and the most recent events.
import type { ResponseOf } from '@tollgate/contract';
import { api } from '../../api.ts';
import { EventsTable } from '../../components/events-table.tsx';
import { ErrorLine } from '../../components/form.tsx';
import { count } from '../../components/format.ts';
import { useProxyNames } from '../../components/proxy-names.ts';
import { useApi } from '../../components/use-api.ts';
import { href } from '../../router.ts';

type Overview = ResponseOf<'GET /api/overview'>;
type Health = ResponseOf<'GET /api/health'>;

const CARDS: Array<[keyof Overview, string]> = [
  ['totalMcps', 'MCP proxies'], ['totalLlmProxies', 'LLM proxies'], ['totalKeys', 'Client keys'], ['activeRules', 'Active rules'],
  ['events24h', 'Events, 24 h'], ['allow24h', 'Allowed, 24 h'], ['deny24h', 'Denied, 24 h'], ['error24h', 'Errors, 24 h'],
];

function Cards(p: { o: Overview }) {
  return (
    <ul class="cards plain" aria-label="Counts">
      {CARDS.map(([k, label]) => (
        <li class="card" key={k}><span class="n">{count(p.o[k])}</span><br />{label}</li>
      ))}
    </ul>
  );
}

function HealthTable(p: { h: Health }) {
  return (
    <>
      <p>Overall: <strong class={p.h.overall === 'operational' ? 'ok' : 'error'}>{p.h.overall}</strong></p>
      <table class="compact">
        <caption class="sr-only">Services</caption>
        <thead><tr><th scope="col">Service</th><th scope="col">Status</th><th scope="col">Latency</th></tr></thead>
        <tbody>
          {p.h.services.map((s) => (
            <tr key={s.name}><th scope="row">{s.name}</th><td class={s.status === 'up' ? 'ok' : 'error'}>{s.status}</td><td>{s.latencyMs.toFixed(1)} ms</td></tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

export function OverviewPage() {
  const overview = useApi(() => api.call('GET /api/overview'), []);
  const health = useApi(() => api.call('GET /api/health'), []);
  const feed = useApi(() => api.call('GET /api/overview/feed', { query: { limit: 10 } }), []);
  const names = useProxyNames();
  return (
    <main class="overview">
      <h1>Overview</h1>
      <ErrorLine message={overview.error} />
      {overview.data && <Cards o={overview.data} />}
      <section aria-labelledby="health-h">
        <h2 id="health-h">Health</h2>
        <ErrorLine message={health.error} />
        {health.data && <HealthTable h={health.data} />}
      </section>
      <section aria-labelledby="feed-h">
        <h2 id="feed-h">Recent events</h2>
        <ErrorLine message={feed.error} />
        {feed.data && <EventsTable caption="The 10 most recent events" entries={feed.data.entries} names={names} />}
        <p><a href={href('/logs')}>All events and the chart</a></p>
      </section>
    </main>
  );
}
