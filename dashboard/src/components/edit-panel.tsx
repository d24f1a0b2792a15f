// A collapsible "edit" form that saves with one call: busy while it runs, the API's message when it fails, "Saved."
// when it succeeds. `save` reads the form and returns the failure message, or undefined on success.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorLine } from './form.tsx';

export function EditPanel(p: { summary: string; save: (form: HTMLFormElement) => Promise<string | undefined>; children: ComponentChildren }) {
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setSaved(false);
    const failed = await p.save(e.currentTarget as HTMLFormElement);
    setBusy(false);
    setError(failed);
    setSaved(!failed);
  }
  return (
    <details class="panel">
      <summary>{p.summary}</summary>
      <form onSubmit={submit} noValidate>
        {p.children}
        <ErrorLine message={error} />
        <div class="row">
          <button type="submit" disabled={busy}>Save changes</button>
          {saved && <span class="ok" role="status">Saved.</span>}
        </div>
      </form>
    </details>
  );
}
