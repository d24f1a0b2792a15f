// One generated field of a rule form: the control its kind calls for, labelled, with the schema's description as
// its hint. Option lists are a group of checkboxes under a legend.
import { useState } from 'preact/hooks';
import { Field, newId } from '../form.tsx';
import type { RuleFieldSpec } from './rule-fields.ts';

type Raw = string | boolean | string[];
interface Props<T> { spec: RuleFieldSpec; id: string; value: T; onChange: (v: T) => void }

const labelOf = (spec: RuleFieldSpec) => spec.name + (spec.required ? '' : ' (optional)');
const hintIdOf = (p: { spec: RuleFieldSpec; id: string }) => (p.spec.description ? `${p.id}-hint` : undefined);

export function FieldInput(p: { spec: RuleFieldSpec; value: Raw | undefined; onChange: (v: Raw) => void }) {
  const [id] = useState(() => newId(`rule-${p.spec.name}`));
  const { spec, value, onChange } = p;
  if (spec.kind === 'boolean') return <CheckboxField spec={spec} id={id} value={value === true} onChange={onChange} />;
  if (spec.kind === 'enum-list') return <OptionList spec={spec} id={id} value={Array.isArray(value) ? value : []} onChange={onChange} />;
  const hint = spec.kind === 'list' ? `${spec.description} One per line, or separated by commas.`.trim() : spec.description;
  return (
    <Field label={labelOf(spec)} id={id} hint={hint || undefined}>
      <TextControl spec={spec} id={id} value={typeof value === 'string' ? value : ''} onChange={onChange} />
    </Field>
  );
}

function TextControl(p: Props<string>) {
  const { spec, id } = p;
  const hintId = spec.description || spec.kind === 'list' ? `${id}-hint` : undefined;
  const onInput = (e: Event) => p.onChange((e.currentTarget as HTMLInputElement).value);
  if (spec.kind === 'enum') {
    return (
      <select id={id} value={p.value} aria-describedby={hintId} onChange={onInput}>
        {(!spec.required || spec.default === undefined) && <option value="">{spec.default === undefined ? 'Choose…' : '(default)'}</option>}
        {spec.options.map((o) => <option key={o} value={o}>{o}</option>)}
      </select>
    );
  }
  if (spec.kind === 'text' || spec.kind === 'list') {
    return <textarea id={id} value={p.value} rows={spec.kind === 'text' ? 6 : 3} cols={60} aria-describedby={hintId} onInput={onInput} />;
  }
  if (spec.kind === 'number') return <input id={id} type="number" step="any" value={p.value} aria-describedby={hintId} onInput={onInput} />;
  return <input id={id} type="text" value={p.value} aria-describedby={hintId} onInput={onInput} />;
}

function CheckboxField(p: Props<boolean>) {
  const hintId = hintIdOf(p);
  return (
    <div class="field check">
      <label for={p.id}>
        <input id={p.id} type="checkbox" checked={p.value} aria-describedby={hintId} onChange={(e) => p.onChange(e.currentTarget.checked)} />
        {' '}{p.spec.name}
      </label>
      {hintId && <p class="hint" id={hintId}>{p.spec.description}</p>}
    </div>
  );
}

function OptionList(p: Props<string[]>) {
  const hintId = hintIdOf(p);
  const toggle = (o: string, on: boolean) => p.onChange(on ? [...p.value, o] : p.value.filter((v) => v !== o));
  return (
    <fieldset class="field options" aria-describedby={hintId}>
      <legend>{labelOf(p.spec)}</legend>
      {hintId && <p class="hint" id={hintId}>{p.spec.description}</p>}
      <div class="option-grid">
        {p.spec.options.map((o) => (
          <label key={o}><input type="checkbox" checked={p.value.includes(o)} onChange={(e) => toggle(o, e.currentTarget.checked)} /> {o}</label>
        ))}
      </div>
    </fieldset>
  );
}
