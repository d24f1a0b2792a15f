// Delete with a confirmation step in the page (no window.confirm: it blocks the page and cannot be styled or tested
// like the rest). The first button asks, the second one deletes; Cancel puts the first back.
import { useState } from 'preact/hooks';
import { Button, ErrorLine } from './form.tsx';

export function ConfirmDelete(p: {
  /** What is deleted, in the question: "the MCP proxy docs". */
  what: string;
  /** The button's label before confirmation. */
  label?: string;
  /** Deletes; answers the API's message on failure. */
  onConfirm: () => Promise<string | undefined>;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  async function confirm() {
    setBusy(true);
    const message = await p.onConfirm();
    setBusy(false);
    setError(message);
    if (!message) setAsking(false);
  }
  if (!asking) return <Button class="danger" onClick={() => setAsking(true)}>{p.label ?? 'Delete'}</Button>;
  return (
    <div class="confirm" role="group" aria-label={`Confirm: delete ${p.what}`}>
      <p>Delete {p.what}? This cannot be undone.</p>
      <div class="row">
        <Button class="danger" busy={busy} onClick={confirm} autoFocus>Yes, delete</Button>
        <Button class="secondary" onClick={() => { setAsking(false); setError(undefined); }}>Cancel</Button>
      </div>
      <ErrorLine message={error} />
    </div>
  );
}
