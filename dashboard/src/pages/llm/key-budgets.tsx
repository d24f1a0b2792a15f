// Per-key caps on this proxy: the caller's keys that reach it (or are capped on it), each with its budget. A per-key
// cap and the proxy budget both apply; the stricter wins.
import { useState } from 'preact/hooks';
import type { ResponseOf } from '@tollgate/contract';
import { api, failure } from '../../api.ts';
import { Button, ErrorLine } from '../../components/form.tsx';
import { useApi } from '../../components/use-api.ts';
import { BudgetFields, readBudget } from './budget-fields.tsx';

type Entry = ResponseOf<'GET /api/llm/:id/keys'>['keys'][number];

export function KeyBudgets({ id }: { id: string }) {
  const list = useApi(() => api.call('GET /api/llm/:id/keys', { params: { id } }), [id]);
  const [editing, setEditing] = useState<string>();
  const [error, setError] = useState<string>();
  async function remove(credId: string) {
    const r = await api.call('DELETE /api/llm/:id/keys/:credId/budget', { params: { id, credId } });
    setError(failure(r));
    if (r.ok) await list.reload();
  }
  const keys = list.data?.keys ?? [];
  return (
    <section aria-labelledby={`key-budgets-${id}`}>
      <h2 id={`key-budgets-${id}`}>Per-key budgets</h2>
      <ErrorLine message={list.error ?? error} />
      {keys.length === 0 ? <p class="muted">No client key reaches this proxy yet.</p> : (
        <div class="table-wrap">
          <table aria-label="Per-key budgets">
            <thead><tr><th scope="col">Key</th><th scope="col">Models</th><th scope="col">Cap</th><th scope="col">Actions</th></tr></thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.credentialId}>
                  <td>{k.name ?? '(no name)'} <code>{k.key}</code></td>
                  <td>{k.models.join(', ')}</td>
                  <td>{k.budget ? `$${k.budget.capUsd} ${k.budget.period}${k.budget.hardBlock ? ', hard block' : ''}` : 'none'}</td>
                  <td class="actions">
                    <Button class="secondary" aria-label={`Set cap of ${k.name ?? k.key}`} onClick={() => setEditing(k.credentialId)}>Set cap</Button>
                    {k.budget && <Button class="danger" aria-label={`Remove cap of ${k.name ?? k.key}`} onClick={() => remove(k.credentialId)}>Remove cap</Button>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing && <CapForm id={id} entry={keys.find((k) => k.credentialId === editing)} onDone={async (changed) => { setEditing(undefined); if (changed) await list.reload(); }} />}
    </section>
  );
}

function CapForm(p: { id: string; entry: Entry | undefined; onDone: (changed: boolean) => Promise<void> }) {
  const [error, setError] = useState<string>();
  if (!p.entry) return null;
  const { credentialId, name, key } = p.entry;
  async function submit(e: Event) {
    e.preventDefault();
    const r = await api.call('PUT /api/llm/:id/keys/:credId/budget', {
      params: { id: p.id, credId: credentialId }, body: readBudget(new FormData(e.currentTarget as HTMLFormElement), 'keycap'),
    });
    setError(failure(r));
    if (r.ok) await p.onDone(true);
  }
  return (
    <form class="panel" onSubmit={submit} noValidate aria-label={`Cap of ${name ?? key}`}>
      <h3>Cap of {name ?? key}</h3>
      <BudgetFields initial={p.entry.budget} prefix="keycap" />
      <ErrorLine message={error} />
      <div class="row">
        <button type="submit">Save cap</button>
        <button type="button" class="secondary" onClick={() => p.onDone(false)}>Cancel</button>
      </div>
    </form>
  );
}
