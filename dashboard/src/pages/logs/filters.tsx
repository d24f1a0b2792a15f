// The filter form of the logs page. Applying it writes the hash query (page back to 1); the page reads the query.
import { useState } from 'preact/hooks';
import { Field, newId } from '../../components/form.tsx';
import { fromLocalInput, toLocalInput } from '../../components/format.ts';
import { href, navigate } from '../../router.ts';
import { useProxyNames } from '../../components/proxy-names.ts';
import { choicesWith } from './event-types.ts';
import { PAGE_SIZES, toHash, type LogsQuery } from './query.ts';

/** A form field's trimmed value, undefined when empty (left out of the hash). */
const text = (f: FormData, name: string) => String(f.get(name) ?? '').trim() || undefined;
const num = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s) ? Number(s) : undefined);

export function LogFilters(p: { q: LogsQuery }) {
  const [ids] = useState(() => ({
    type: newId('event-type'), proxy: newId('proxy'), tool: newId('tool'), model: newId('model'), from: newId('from'), to: newId('to'), limit: newId('limit'),
  }));
  const proxies = [...useProxyNames().values()];
  function apply(e: Event) {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const from = fromLocalInput(String(f.get('from') ?? ''));
    // A minute picked as the end includes its last second (the API's `to` is inclusive).
    const to = fromLocalInput(String(f.get('to') ?? ''));
    navigate('/logs', toHash({
      ...p.q, page: 1, event_type: text(f, 'event_type'), proxy: text(f, 'proxy'), tool: text(f, 'tool'), model: text(f, 'model'),
      from: from?.toString(), to: to === undefined ? undefined : String(to + 59), limit: Number(f.get('limit')) || 50,
    }));
  }
  return (
    <form class="filters row" onSubmit={apply} aria-label="Filter events">
      <Field label="Event type" id={ids.type}>
        <select id={ids.type} name="event_type">
          {choicesWith(p.q.event_type).map((c) => <option key={c.value} value={c.value} selected={c.value === (p.q.event_type ?? '')}>{c.label}</option>)}
        </select>
      </Field>
      <Field label="Proxy" id={ids.proxy}>
        <select id={ids.proxy} name="proxy">
          <option value="" selected={!p.q.proxy}>Every proxy</option>
          {proxies.map((x) => {
            const v = `${x.kind.toLowerCase()}:${x.id}`;
            return <option key={v} value={v} selected={v === p.q.proxy}>{x.name} ({x.kind})</option>;
          })}
        </select>
      </Field>
      <Field label="Tool" id={ids.tool}>
        <input id={ids.tool} name="tool" defaultValue={p.q.tool ?? ''} size={14} />
      </Field>
      <Field label="Model" id={ids.model}>
        <input id={ids.model} name="model" defaultValue={p.q.model ?? ''} size={14} />
      </Field>
      <Field label="From (your time)" id={ids.from}>
        <input id={ids.from} name="from" type="datetime-local" defaultValue={toLocalInput(num(p.q.from))} />
      </Field>
      <Field label="To (your time)" id={ids.to}>
        <input id={ids.to} name="to" type="datetime-local" defaultValue={toLocalInput(num(p.q.to))} />
      </Field>
      <Field label="Per page" id={ids.limit}>
        <select id={ids.limit} name="limit">
          {[...new Set([...PAGE_SIZES, p.q.limit])].map((n) => <option key={n} value={String(n)} selected={n === p.q.limit}>{n}</option>)}
        </select>
      </Field>
      <div class="field actions">
        <button type="submit">Apply</button>
        <a href={href('/logs', { bucket: p.q.bucket === 'day' ? 'day' : undefined })}>Clear filters</a>
      </div>
    </form>
  );
}
