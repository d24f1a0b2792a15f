// The three reads of the usage page: the proxy's daily series, its monthly series with the current month per key,
// and one key's daily series.
import type { ResponseOf } from '@tollgate/contract';
import { api } from '../../api.ts';
import { ErrorLine } from '../../components/form.tsx';
import { count, plural, unixOf, usd, utcDay, utcMonth } from '../../components/format.ts';
import { useApi } from '../../components/use-api.ts';
import { href } from '../../router.ts';
import { usageHash, type UsageQuery } from './query.ts';
import { UsageCharts } from './usage-charts.tsx';

type Daily = ResponseOf<'GET /api/llm/:id/usage/daily'>;
type Monthly = ResponseOf<'GET /api/llm/:id/usage'>;

function Totals(p: { t: Daily['totals'] }) {
  return (
    <p class="totals">
      {plural(p.t.requests, 'request')} · {plural(p.t.totalTokens, 'token')} · {usd(p.t.costCents)}
      {p.t.estimatedRequests > 0 && <> · {count(p.t.estimatedRequests)} estimated (the provider reported no usage)</>}
    </p>
  );
}

function DailyView(p: { d: Daily; what: string }) {
  const points = p.d.series.map((s) => ({ ...s, ts: unixOf(s.date) }));
  return (
    <>
      <Totals t={p.d.totals} />
      {p.d.window && p.d.budget && (
        <p>Budget: {usd(p.d.window.spentCents)} of ${p.d.budget.capUsd} spent in the current {p.d.budget.period} window.</p>
      )}
      <UsageCharts what={p.what} points={points} bucketLabel={utcDay} totals={p.d.totals} />
    </>
  );
}

export function DailyUsage(p: { llm: string; days: number }) {
  const r = useApi(() => api.call('GET /api/llm/:id/usage/daily', { params: { id: p.llm }, query: { days: p.days } }), [p.llm, p.days]);
  return (
    <section aria-labelledby="daily-h">
      <h2 id="daily-h">Daily, last {p.days} days</h2>
      <ErrorLine message={r.error} />
      {r.data && <DailyView d={r.data} what="Per day" />}
    </section>
  );
}

export function KeyDailyUsage(p: { llm: string; credId: string; q: UsageQuery }) {
  const { days } = p.q;
  const r = useApi(() => api.call('GET /api/llm/:id/keys/:credId/usage/daily', { params: { id: p.llm, credId: p.credId }, query: { days } }), [p.llm, p.credId, days]);
  const keys = useApi(() => api.call('GET /api/llm/:id/keys', { params: { id: p.llm } }), [p.llm]);
  const k = keys.data?.keys.find((x) => x.credentialId === p.credId);
  const name = k ? (k.name ?? k.key) : p.credId.slice(0, 8);
  return (
    <section aria-labelledby="key-daily-h">
      <h2 id="key-daily-h">Key {name}: daily, last {days} days</h2>
      <p><a href={href('/usage', usageHash({ ...p.q, key: undefined }))}>Back to the whole proxy</a></p>
      <ErrorLine message={r.error} />
      {r.data && <DailyView d={r.data} what={`Key ${name}, per day`} />}
    </section>
  );
}

const keyName = (k: Monthly['byKey'][number]) => k.name ?? (k.credentialId ? k.credentialId.slice(0, 8) : 'Without a key (JWT)');

function ByKey(p: { m: Monthly; q: UsageQuery }) {
  if (!p.m.byKey.length) return <p class="muted">No usage this month.</p>;
  return (
    <table>
      <caption>This month per key, most expensive first</caption>
      <thead><tr><th scope="col">Key</th><th scope="col">Requests</th><th scope="col">Input tokens</th><th scope="col">Output tokens</th><th scope="col">Cost</th><th scope="col">Daily</th></tr></thead>
      <tbody>
        {p.m.byKey.map((k) => (
          <tr key={k.credentialId ?? 'none'}>
            <th scope="row">{keyName(k)}</th>
            <td>{count(k.requests)}</td><td>{count(k.inputTokens)}</td><td>{count(k.outputTokens)}</td><td>{usd(k.costCents)}</td>
            <td>{k.credentialId ? <a href={href('/usage', usageHash({ ...p.q, key: k.credentialId }))}>Show daily<span class="sr-only"> usage of key {keyName(k)}</span></a> : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function MonthlyUsage(p: { llm: string; q: UsageQuery }) {
  const r = useApi(() => api.call('GET /api/llm/:id/usage', { params: { id: p.llm }, query: { months: p.q.months } }), [p.llm, p.q.months]);
  const points = (r.data?.series ?? []).map((s) => ({ ...s, ts: unixOf(s.month) }));
  return (
    <section aria-labelledby="monthly-h">
      <h2 id="monthly-h">Monthly, last {p.q.months} months</h2>
      <ErrorLine message={r.error} />
      {r.data && (
        <>
          <Totals t={r.data.totals} />
          <UsageCharts what="Per month" points={points} bucketLabel={utcMonth} totals={r.data.totals} />
          <ByKey m={r.data} q={p.q} />
        </>
      )}
    </section>
  );
}
