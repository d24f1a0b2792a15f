// A windowed USD budget (period, cap, hard block) as form fields, shared by the proxy form and the per-key caps.
import { useState } from 'preact/hooks';
import { BUDGET_PERIODS, type ResponseOf } from '@tollgate/contract';
import { Field, newId } from '../../components/form.tsx';

export type Budget = NonNullable<ResponseOf<'GET /api/llm/:id'>['budget']>;

export function BudgetFields(p: { initial?: Budget | null; prefix?: string }) {
  const [ids] = useState(() => ({ period: newId('budget-period'), cap: newId('budget-cap'), hard: newId('budget-hard') }));
  const n = (name: string) => `${p.prefix ?? 'budget'}.${name}`;
  return (
    <div class="row">
      <Field label="Period" id={ids.period}>
        {/* `selected` on the option: a select has no defaultValue property for Preact to set. */}
        <select id={ids.period} name={n('period')}>
          {BUDGET_PERIODS.map((b) => <option key={b} value={b} selected={b === (p.initial?.period ?? 'monthly')}>{b}</option>)}
        </select>
      </Field>
      <Field label="Cap (USD)" id={ids.cap} hint="0 tracks spend without a cap.">
        <input id={ids.cap} name={n('capUsd')} type="number" min="0" step="0.01" defaultValue={p.initial ? String(p.initial.capUsd) : ''} aria-describedby={`${ids.cap}-hint`} />
      </Field>
      <div class="field check">
        <label for={ids.hard}><input id={ids.hard} name={n('hardBlock')} type="checkbox" defaultChecked={p.initial?.hardBlock ?? false} /> Hard block (402 once the cap is reached)</label>
      </div>
    </div>
  );
}

/** The budget the fields hold; an empty cap is sent as it is, so the API names the problem. */
export function readBudget(f: FormData, prefix = 'budget'): Budget {
  const cap = String(f.get(`${prefix}.capUsd`) ?? '').trim();
  return {
    period: String(f.get(`${prefix}.period`)) as Budget['period'],
    capUsd: cap === '' ? Number.NaN : Number(cap),
    hardBlock: f.get(`${prefix}.hardBlock`) === 'on',
  };
}
