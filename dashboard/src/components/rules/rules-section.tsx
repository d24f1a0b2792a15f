// The "Rules" section of a proxy page: the ordered array (GET .../rules), edited in the page and saved whole with one
// PUT .../rules, which answers the array as stored (defaults filled in) or the API's own validation message.
import { useState } from 'preact/hooks';
import type { ApiResult, BodyOf, ProxyKind } from '@tollgate/contract';
import { api, failure } from '../../api.ts';
import { Button, ErrorLine } from '../form.tsx';
import { useApi } from '../use-api.ts';
import { RuleForm, type DraftRule } from './rule-form.tsx';
import { RuleList } from './rule-list.tsx';
import { RulesJson } from './rules-json.tsx';

type RulesAnswer = ApiResult<{ rules: unknown[] }>;

function rulesApi(kind: ProxyKind, id: string) {
  return {
    get: (): Promise<RulesAnswer> => (kind === 'mcp'
      ? api.call('GET /api/mcp/:id/rules', { params: { id } })
      : api.call('GET /api/llm/:id/rules', { params: { id } })),
    // The API checks every rule (and answers why not); the page sends what the user wrote.
    put: (rules: DraftRule[]): Promise<RulesAnswer> => (kind === 'mcp'
      ? api.call('PUT /api/mcp/:id/rules', { params: { id }, body: { rules } as BodyOf<'PUT /api/mcp/:id/rules'> })
      : api.call('PUT /api/llm/:id/rules', { params: { id }, body: { rules } as BodyOf<'PUT /api/llm/:id/rules'> })),
  };
}

export function RulesSection(p: { kind: ProxyKind; id: string }) {
  const calls = rulesApi(p.kind, p.id);
  const loaded = useApi(calls.get, [p.kind, p.id]);
  const [draft, setDraft] = useState<DraftRule[]>();
  const [editing, setEditing] = useState<number>();
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState<string>();
  const saved = (loaded.data?.rules ?? []) as DraftRule[];
  const rules = draft ?? saved;
  const dirty = draft !== undefined;

  async function save(next: DraftRule[]): Promise<string | undefined> {
    setStatus(undefined);
    const r = await calls.put(next);
    if (!r.ok) return failure(r);
    loaded.set(r.body);
    setDraft(undefined);
    setEditing(undefined);
    setError(undefined);
    setStatus(`Rules saved (${r.body.rules.length}).`);
    return undefined;
  }
  const change = (next: DraftRule[]) => { setDraft(next); setEditing(undefined); setStatus(undefined); };
  const actions = {
    move(from: number, to: number) {
      const next = [...rules];
      const [r] = next.splice(from, 1);
      next.splice(to, 0, r!);
      change(next);
    },
    setEnabled: (i: number, on: boolean) => change(rules.map((r, j) => (j === i ? { ...r, enabled: on } : r))),
    edit: (i: number) => setEditing(i),
    remove: (i: number) => change(rules.filter((_, j) => j !== i)),
  };
  const editRule = editing === undefined ? undefined : rules[editing];
  return (
    <section aria-labelledby={`rules-${p.id}`}>
      <h2 id={`rules-${p.id}`}>Rules</h2>
      <p class="hint">Evaluated in this order on every request. Changes here are kept in the page until you save them.</p>
      <ErrorLine message={loaded.error} />
      <RuleList prefix={`rule-${p.id}`} rules={rules} actions={actions} />
      <div class="row">
        {dirty && <Button onClick={async () => setError(await save(rules))}>Save rules</Button>}
        {dirty && <Button class="secondary" onClick={() => { setDraft(undefined); setError(undefined); }}>Discard changes</Button>}
        {dirty && <span class="warn">Unsaved changes.</span>}
        {status && <span class="ok" role="status">{status}</span>}
      </div>
      <ErrorLine message={error} />
      {editRule && editing !== undefined ? (
        <div class="panel">
          <h3>Edit rule {editing}</h3>
          <RuleForm key={`edit-${editing}`} kind={p.kind} editing={editRule} onCancel={() => setEditing(undefined)}
            onSubmit={(rule) => save(rules.map((r, j) => (j === editing ? rule : r)))} />
        </div>
      ) : (
        <details class="panel">
          <summary>Add a rule</summary>
          <RuleForm kind={p.kind} onSubmit={(rule) => save([...rules, rule])} />
        </details>
      )}
      <RulesJson rules={rules} onSave={save} />
    </section>
  );
}
