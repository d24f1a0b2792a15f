// Usage (#/usage): per LLM proxy, cost and tokens per day and per month, the current month per key, and one key's
// days. The proxy, the ranges and the key are in the hash query (query.ts).
import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorLine, Field, newId } from '../../components/form.tsx';
import { LlmSelect } from '../../components/llm-select.tsx';
import { useApi } from '../../components/use-api.ts';
import { href, navigate, type Route } from '../../router.ts';
import { DAY_CHOICES, MONTH_CHOICES, readUsageQuery, usageHash, type UsageQuery } from './query.ts';
import { DailyUsage, KeyDailyUsage, MonthlyUsage } from './sections.tsx';

function Picker(p: { q: UsageQuery; proxies: Parameters<typeof LlmSelect>[0]['proxies'] }) {
  const [ids] = useState(() => ({ llm: newId('llm'), days: newId('days'), months: newId('months') }));
  function apply(e: Event) {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const llm = String(f.get('llm') ?? '') || undefined;
    navigate('/usage', usageHash({ llm, days: Number(f.get('days')), months: Number(f.get('months')), key: llm === p.q.llm ? p.q.key : undefined }));
  }
  return (
    <form class="row" onSubmit={apply} aria-label="Choose the proxy and the periods">
      <LlmSelect id={ids.llm} proxies={p.proxies} selected={p.q.llm} />
      <Field label="Days" id={ids.days}>
        <select id={ids.days} name="days">{[...new Set([...DAY_CHOICES, p.q.days])].map((n) => <option key={n} value={String(n)} selected={n === p.q.days}>{n}</option>)}</select>
      </Field>
      <Field label="Months" id={ids.months}>
        <select id={ids.months} name="months">{[...new Set([...MONTH_CHOICES, p.q.months])].map((n) => <option key={n} value={String(n)} selected={n === p.q.months}>{n}</option>)}</select>
      </Field>
      <div class="field actions"><button type="submit">Show</button></div>
    </form>
  );
}

export function UsagePage(p: { route: Route }) {
  const list = useApi(() => api.call('GET /api/llm'), []);
  const proxies = list.data?.proxies ?? [];
  const asked = readUsageQuery(p.route.query);
  const q = { ...asked, llm: asked.llm ?? proxies[0]?.id };
  return (
    <main class="usage">
      <h1>Usage</h1>
      <ErrorLine message={list.error} />
      {list.data && !proxies.length && <p>No LLM proxies yet: <a href={href('/llm')}>create one</a> to see its spend here.</p>}
      {q.llm && (
        <>
          <Picker key={p.route.query.toString()} q={q} proxies={proxies} />
          {q.key ? <KeyDailyUsage llm={q.llm} credId={q.key} q={q} /> : <DailyUsage llm={q.llm} days={q.days} />}
          <MonthlyUsage llm={q.llm} q={q} />
        </>
      )}
    </main>
  );
}
