// Cost and tokens of a usage series (daily or monthly) as two charts: dollars and token counts do not share a scale.
import type { ResponseOf } from '@tollgate/contract';
import { Chart, COLORS } from '../../components/chart.tsx';
import { count, plural, usd } from '../../components/format.ts';

type Totals = ResponseOf<'GET /api/llm/:id/usage'>['totals'];

export interface UsagePoint extends Totals { ts: number }

export function UsageCharts(p: { what: string; points: UsagePoint[]; bucketLabel(ts: number): string; totals: Totals }) {
  const x = p.points.map((d) => d.ts);
  const range = p.points.length ? `from ${p.bucketLabel(x[0]!)} to ${p.bucketLabel(x.at(-1)!)}` : '';
  return (
    <div class="chart-pair">
      <Chart
        title={`${p.what}: cost (USD)`} x={x} format={usd} amounts bucketLabel={p.bucketLabel}
        series={[{ label: 'Cost', values: p.points.map((d) => d.costCents), color: COLORS.primary }]}
        summary={`Cost ${usd(p.totals.costCents)} over ${plural(p.totals.requests, 'request')} ${range}.`}
      />
      <Chart
        title={`${p.what}: tokens`} x={x} bucketLabel={p.bucketLabel}
        series={[
          { label: 'Input tokens', values: p.points.map((d) => d.inputTokens), color: COLORS.primary },
          { label: 'Output tokens', values: p.points.map((d) => d.outputTokens), color: COLORS.secondary },
        ]}
        summary={`${count(p.totals.inputTokens)} input and ${count(p.totals.outputTokens)} output tokens ${range}.`}
      />
    </div>
  );
}
