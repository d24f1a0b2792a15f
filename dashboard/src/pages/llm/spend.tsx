// The proxy budget's current window as a spend bar: spent / cap (GET .../usage/daily answers the window and the
// budget), red once the spend reaches the cap. Spend is charged by the gateway in batches, so Refresh reads it again.
import { api } from '../../api.ts';
import { Button, ErrorLine } from '../../components/form.tsx';
import { useApi } from '../../components/use-api.ts';

const usd = (cents: number) => `$${(cents / 100).toFixed(2)}`;

export function SpendBar(p: { id: string; version: number }) {
  const u = useApi(() => api.call('GET /api/llm/:id/usage/daily', { params: { id: p.id }, query: { days: 1 } }), [p.id, p.version]);
  const budget = u.data?.budget;
  const win = u.data?.window;
  return (
    <section aria-labelledby={`spend-${p.id}`}>
      <h2 id={`spend-${p.id}`}>Budget</h2>
      <ErrorLine message={u.error} />
      {u.data && (!budget || !win ? <p class="muted">No proxy budget: spend is tracked, nothing is capped.</p> : (
        <Window spentCents={win.spentCents} capUsd={budget.capUsd} period={budget.period} hardBlock={budget.hardBlock} tag={win.tag} rollsOverAt={win.rollsOverAt} />
      ))}
      <Button class="secondary" busy={u.loading} onClick={u.reload}>Refresh spend</Button>
    </section>
  );
}

function Window(p: { spentCents: number; capUsd: number; period: string; hardBlock: boolean; tag: string; rollsOverAt: number }) {
  const capCents = p.capUsd * 100;
  const over = capCents > 0 && p.spentCents >= capCents;
  const pct = capCents > 0 ? Math.min(100, (p.spentCents / capCents) * 100) : 0;
  const text = capCents > 0 ? `${usd(p.spentCents)} of ${usd(capCents)} spent (${Math.round(pct)}%)` : `${usd(p.spentCents)} spent (no cap)`;
  return (
    <div class="spend">
      <div
        class={over ? 'bar over' : 'bar'} role="meter" aria-label="Spend in the current window"
        aria-valuemin={0} aria-valuemax={capCents} aria-valuenow={Math.min(p.spentCents, capCents)} aria-valuetext={text}
        data-spent-cents={p.spentCents}
      >
        <span style={{ width: `${pct}%` }} />
      </div>
      <p>
        <strong>{text}</strong>{over && <span class="error"> over the cap{p.hardBlock ? ': requests are refused (402)' : ': requests pass and are flagged'}</span>}
      </p>
      <p class="hint">
        {p.period} window <code>{p.tag}</code>
        {p.rollsOverAt > 0 ? `, rolls over ${new Date(p.rollsOverAt * 1000).toISOString().replace('T', ' ').slice(0, 16)} UTC` : ', until reset'}
        {p.hardBlock ? '; hard block' : '; soft (flag only)'}
      </p>
    </div>
  );
}
