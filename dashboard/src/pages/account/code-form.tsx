// A one-field form for a 6-digit authenticator code, shared by turning 2FA on and off; the API checks the code and
// its message is shown as it is.
import { useState } from 'preact/hooks';
import { ErrorLine, Field, newId } from '../../components/form.tsx';

export function CodeForm(p: { label: string; submit: string; danger?: boolean; onCode(code: string): Promise<string | undefined> }) {
  const [id] = useState(() => newId('code'));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function onSubmit(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    setBusy(true);
    setError(undefined);
    try {
      const failed = await p.onCode(String(new FormData(form).get('code')).trim());
      if (failed) setError(failed);
      else form.reset();
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={onSubmit}>
      <Field label={p.label} id={id} hint="The 6-digit code your authenticator app shows now.">
        <input id={id} name="code" inputMode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxLength={6} required
          class="code" aria-describedby={`${id}-hint`} />
      </Field>
      <ErrorLine message={error} />
      <button type="submit" class={p.danger ? 'danger' : undefined} disabled={busy}>{p.submit}</button>
    </form>
  );
}
