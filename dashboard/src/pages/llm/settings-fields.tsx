// The fields of an LLM proxy (create and edit): provider, models, the write-only provider key, conversation logs and
// the proxy budget. The provider key is never shown back: on edit an empty field keeps the stored one.
import { useState } from 'preact/hooks';
import { PROVIDER_IDS, type BodyOf, type ResponseOf } from '@tollgate/contract';
import { Field, newId } from '../../components/form.tsx';
import { joinList, splitList } from '../../components/list-text.ts';
import { BudgetFields, readBudget } from './budget-fields.tsx';

type LlmRecord = ResponseOf<'GET /api/llm/:id'>;

export function SettingsFields(p: { initial?: LlmRecord }) {
  const [ids] = useState(() => ({
    name: newId('llm-name'), provider: newId('llm-provider'), models: newId('llm-models'), def: newId('llm-default'), log: newId('llm-log'),
  }));
  const init = p.initial;
  return (
    <>
      <Field label="Name" id={ids.name}><input id={ids.name} name="name" defaultValue={init?.name} required /></Field>
      <Field label="Provider" id={ids.provider}>
        <select id={ids.provider} name="provider">
          {PROVIDER_IDS.map((id) => <option key={id} value={id} selected={id === (init?.provider ?? 'openai')}>{id}</option>)}
        </select>
      </Field>
      <Field label="Allowed models" id={ids.models} hint="One per line or comma-separated; empty allows every model of the provider.">
        <textarea id={ids.models} name="allowedModels" rows={3} cols={40} defaultValue={joinList(init?.allowedModels)} aria-describedby={`${ids.models}-hint`} />
      </Field>
      <Field label="Default model" id={ids.def} hint="Optional; one of the allowed models when that list is not empty.">
        <input id={ids.def} name="defaultModel" defaultValue={init?.defaultModel ?? ''} aria-describedby={`${ids.def}-hint`} />
      </Field>
      <ProviderKeyField editing={!!init} />
      <div class="field check">
        <label for={ids.log}><input id={ids.log} name="logConversations" type="checkbox" defaultChecked={init?.logConversations ?? false} /> Log conversations (encrypted, kept 7 days)</label>
      </div>
      <BudgetFieldset budget={init?.budget ?? null} />
    </>
  );
}

function ProviderKeyField(p: { editing: boolean }) {
  const [ids] = useState(() => ({ key: newId('llm-key'), drop: newId('llm-drop-key') }));
  return (
    <>
      <Field
        label={p.editing ? 'Replace provider key' : 'Set provider key'} id={ids.key}
        hint={p.editing ? 'Write-only: leave empty to keep the stored key.' : 'Write-only: stored encrypted and never shown again.'}
      >
        <input id={ids.key} name="providerKey" type="password" autocomplete="off" aria-describedby={`${ids.key}-hint`} />
      </Field>
      {p.editing && (
        <div class="field check"><label for={ids.drop}><input id={ids.drop} name="dropKey" type="checkbox" /> Remove the stored provider key</label></div>
      )}
    </>
  );
}

function BudgetFieldset(p: { budget: LlmRecord['budget'] }) {
  const [id] = useState(() => newId('llm-budget'));
  const [on, setOn] = useState(!!p.budget);
  return (
    <fieldset class="field">
      <legend>Budget</legend>
      <div class="field check">
        <label for={id}><input id={id} name="budgetOn" type="checkbox" checked={on} onChange={(e) => setOn(e.currentTarget.checked)} /> Proxy budget</label>
      </div>
      {on && <BudgetFields initial={p.budget} />}
    </fieldset>
  );
}

/** The create body the fields hold. */
export function readSettings(form: HTMLFormElement): BodyOf<'POST /api/llm'> {
  const f = new FormData(form);
  const key = String(f.get('providerKey') ?? '');
  const def = String(f.get('defaultModel') ?? '').trim();
  return {
    name: String(f.get('name') ?? ''),
    provider: String(f.get('provider')) as BodyOf<'POST /api/llm'>['provider'],
    allowedModels: splitList(String(f.get('allowedModels') ?? '')),
    defaultModel: def || null,
    logConversations: f.get('logConversations') === 'on',
    budget: f.get('budgetOn') === 'on' ? readBudget(f) : null,
    ...(key ? { providerKey: key } : {}),
  };
}

/** The PATCH body: the same fields; the key only when one is typed (or its removal asked for). */
export function readSettingsPatch(form: HTMLFormElement): BodyOf<'PATCH /api/llm/:id'> {
  const body: BodyOf<'PATCH /api/llm/:id'> = readSettings(form);
  if (new FormData(form).get('dropKey') === 'on') body.providerKey = null;
  return body;
}
