// The whole rule array as JSON, for reading it at once or pasting rules written elsewhere. Saving sends it as it is
// (one PUT); the API's message says what it refused.
import { useState } from 'preact/hooks';
import { ErrorLine, Field, newId } from '../form.tsx';
import type { DraftRule } from './rule-form.tsx';

export function RulesJson(p: { rules: DraftRule[]; onSave: (rules: DraftRule[]) => Promise<string | undefined> }) {
  const [id] = useState(() => newId('rules-json'));
  const shown = JSON.stringify(p.rules, null, 2);
  const [text, setText] = useState(shown);
  const [from, setFrom] = useState(shown);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  // The array changed elsewhere in the section (a save, a move): show it, unless this text was being edited.
  if (from !== shown && text === from) {
    setFrom(shown);
    setText(shown);
  }
  async function save() {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      return setError(`The JSON does not parse: ${(err as Error).message}`);
    }
    if (!Array.isArray(parsed)) return setError('The JSON must be an array of rules.');
    setBusy(true);
    const message = await p.onSave(parsed as DraftRule[]);
    setBusy(false);
    setError(message);
    // Saved: show the array as the API stored it (defaults filled in) once it arrives.
    if (!message) {
      setText('');
      setFrom('');
    }
  }
  return (
    <details class="panel">
      <summary>JSON view</summary>
      <Field label="Rules as JSON" id={id} hint="The whole ordered array, as PUT …/rules takes it.">
        <textarea id={id} rows={14} cols={80} value={text} spellcheck={false} aria-describedby={`${id}-hint`} onInput={(e) => setText(e.currentTarget.value)} />
      </Field>
      <ErrorLine message={error} />
      <div class="row">
        <button type="button" disabled={busy} onClick={save}>Save JSON</button>
        <button type="button" class="secondary" onClick={() => { setText(shown); setFrom(shown); setError(undefined); }}>Reset to current rules</button>
      </div>
    </details>
  );
}
