// Allow, deny and error per UTC hour or day (GET /api/logs/chart) over the filter's time range, or the API's default
// range (the last 24 hours, or 30 days) without one.
import { api } from '../../api.ts';
import { Chart, COLORS } from '../../components/chart.tsx';
import { ErrorLine } from '../../components/form.tsx';
import { count, utcDay, utcHour } from '../../components/format.ts';
import { useApi } from '../../components/use-api.ts';
import { href } from '../../router.ts';
import { toHash, type LogsQuery } from './query.ts';

const total = (a: number[]) => a.reduce((s, v) => s + v, 0);

export function ActivityChart(p: { q: LogsQuery }) {
  const { bucket, from, to } = p.q;
  const chart = useApi(() => api.call('GET /api/logs/chart', { query: { bucket, from, to } }), [bucket, from, to]);
  const buckets = chart.data?.buckets ?? [];
  const label = bucket === 'day' ? utcDay : utcHour;
  const series = [
    { label: 'Allowed', values: buckets.map((b) => b.allow), color: COLORS.allow },
    { label: 'Denied', values: buckets.map((b) => b.deny), color: COLORS.deny },
    { label: 'Errors', values: buckets.map((b) => b.error), color: COLORS.error },
  ];
  const first = buckets[0];
  const last = buckets.at(-1);
  const summary = first && last
    ? `${series.map((s) => `${s.label} ${count(total(s.values))}`).join(', ')} from ${label(first.ts)} to ${label(last.ts)} UTC, per ${bucket}.`
    : 'No data.';
  return (
    <section aria-labelledby="chart-h">
      <h2 id="chart-h">Allowed, denied and errors</h2>
      <nav aria-label="Chart period" class="toggle">
        {(['hour', 'day'] as const).map((b) => (
          <a key={b} href={href('/logs', toHash({ ...p.q, bucket: b }))} aria-current={bucket === b ? 'true' : undefined}>{b === 'hour' ? 'By hour' : 'By day'}</a>
        ))}
      </nav>
      <ErrorLine message={chart.error} />
      {chart.data && <Chart title={`Requests per ${bucket} (UTC)`} x={buckets.map((b) => b.ts)} series={series} bucketLabel={label} summary={summary} />}
    </section>
  );
}
