// Adds a rule of a type the proxy kind accepts, or edits one: the type's generated form. Submitting saves the whole
// rule array (one PUT); when the API refuses it, its message stays here beside the rule that was being written.
import { useState } from 'preact/hooks';
import { RULE_TYPES_BY_KIND, type ProxyKind, type RuleType } from '@tollgate/contract';
import { ErrorLine, Field, newId } from '../form.tsx';
import { FieldInput } from './field-input.tsx';
import { rawValues, ruleDescription, ruleFields, ruleFromValues, type RawValues } from './rule-fields.ts';

export type DraftRule = Record<string, unknown> & { rule_type: string };

export function RuleForm(p: {
  kind: ProxyKind;
  /** The rule being edited; absent for a new one. */
  editing?: DraftRule;
  onSubmit: (rule: DraftRule) => Promise<string | undefined>;
  onCancel?: () => void;
}) {
  const types = RULE_TYPES_BY_KIND[p.kind];
  const [typeId] = useState(() => newId('rule-type'));
  const [type, setType] = useState<RuleType>((p.editing?.rule_type as RuleType | undefined) ?? types[0]!);
  const [values, setValues] = useState<RawValues>(() => rawValues(type, p.editing));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  function choose(t: RuleType) {
    setType(t);
    setValues(rawValues(t));
    setError(undefined);
  }
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    const message = await p.onSubmit(ruleFromValues(type, values, p.editing) as DraftRule);
    setBusy(false);
    setError(message);
    if (!message && !p.editing) setValues(rawValues(type));
  }
  return (
    <form onSubmit={submit} noValidate class="rule-form">
      {p.editing ? <p><span class="label">Rule type: </span><code>{type}</code></p> : (
        <Field label="Rule type" id={typeId}>
          <select id={typeId} value={type} onChange={(e) => choose(e.currentTarget.value as RuleType)}>
            {types.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </Field>
      )}
      <p class="hint">{ruleDescription(type)}</p>
      {ruleFields(type).map((spec) => (
        <FieldInput key={`${type}.${spec.name}`} spec={spec} value={values[spec.name]} onChange={(v) => setValues((old) => ({ ...old, [spec.name]: v }))} />
      ))}
      <ErrorLine message={error} />
      <div class="row">
        <button type="submit" disabled={busy}>{p.editing ? 'Save rule' : 'Add rule'}</button>
        {p.onCancel && <button type="button" class="secondary" onClick={p.onCancel}>Cancel</button>}
      </div>
    </form>
  );
}
