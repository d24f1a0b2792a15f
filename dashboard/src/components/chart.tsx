// A time-series chart on uPlot with what a canvas cannot give: a visible legend with totals, a summary for screen
// readers (role="img") and the numbers themselves as a table. uPlot sets its styles through the CSSOM and its
// stylesheet is bundled, so the page's CSP (style-src 'self', no inline style elements) holds.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: number[];
  /** Stroke colour; the palette's colours below keep 3:1 against white. */
  color: string;
}

export interface ChartProps {
  title: string;
  /** Bucket starts, Unix seconds. */
  x: number[];
  series: ChartSeries[];
  /** How a bucket is named in the table (its UTC hour, day or month). */
  bucketLabel(ts: number): string;
  /** How a value is written (counts, dollars). */
  format?(n: number): string;
  /** What the chart shows as one sentence, read instead of the canvas. */
  summary: string;
  height?: number;
  /** Counts (the default) keep a top of at least 1; amounts of money scale to their largest value. */
  amounts?: boolean;
}

export const COLORS = { allow: '#146c2e', deny: '#b3261e', error: '#8a5300', primary: '#0b57d0', secondary: '#6a3fb5' } as const;

const plain = (n: number) => n.toLocaleString('en-US');
const sum = (a: number[]) => a.reduce((s, v) => s + v, 0);

function options(p: ChartProps, width: number): uPlot.Options {
  const format = p.format ?? plain;
  return {
    width, height: p.height ?? 220,
    // Buckets are UTC hours, days and months: the axis says the same times as the table.
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    legend: { show: false },
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, p.amounts ? (max > 0 ? max * 1.1 : 1) : Math.max(1, max)] } },
    axes: [
      { stroke: '#4a5260', grid: { stroke: '#e3e6ea' } },
      { stroke: '#4a5260', grid: { stroke: '#e3e6ea' }, size: 70, values: (_u, ticks) => ticks.map(format) },
    ],
    series: [{}, ...p.series.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: true, size: 5, fill: s.color } }))],
  };
}

function Plot(p: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const key = JSON.stringify([p.x, p.series.map((s) => [s.label, s.values])]);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const width = () => Math.max(280, el.clientWidth);
    const plot = new uPlot(options(p, width()), [p.x, ...p.series.map((s) => s.values)], el);
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: p.height ?? 220 }));
    resize.observe(el);
    return () => { resize.disconnect(); plot.destroy(); };
    // Rebuilt when the numbers change, not on every render of the page around it.
  }, [key]);
  return <div ref={host} class="chart-plot" role="img" aria-label={p.summary} />;
}

export function Chart(p: ChartProps) {
  const format = p.format ?? plain;
  return (
    <figure class="chart">
      <figcaption>{p.title}</figcaption>
      <ul class="legend" aria-label={`Legend: ${p.title}`}>
        {p.series.map((s) => (
          <li key={s.label}>
            <span class="swatch" aria-hidden="true" style={{ backgroundColor: s.color }} />
            {s.label}: <strong>{format(sum(s.values))}</strong> in total
          </li>
        ))}
      </ul>
      <Plot {...p} />
      <details class="chart-data">
        <summary>Table of this chart</summary>
        <table>
          <caption>{p.title}</caption>
          <thead><tr><th scope="col">Period (UTC)</th>{p.series.map((s) => <th scope="col" key={s.label}>{s.label}</th>)}</tr></thead>
          <tbody>
            {p.x.map((ts, i) => (
              <tr key={ts}><th scope="row">{p.bucketLabel(ts)}</th>{p.series.map((s) => <td key={s.label}>{format(s.values[i] ?? 0)}</td>)}</tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
