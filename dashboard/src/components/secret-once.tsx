// A plaintext credential (a PAT, a client key) shown the one time the API returns it, with a copy button. The value
// lives only in the caller's component state: it is gone when the page unmounts (navigation), and it never goes to
// web storage.
import { useState } from 'preact/hooks';
import { Button, newId } from './form.tsx';

type CopyState = 'idle' | 'copied' | 'unavailable';

async function copy(value: string): Promise<CopyState> {
  // Absent outside a secure context, and refused without the clipboard permission.
  if (!navigator.clipboard?.writeText) return 'unavailable';
  try {
    await navigator.clipboard.writeText(value);
    return 'copied';
  } catch {
    return 'unavailable';
  }
}

const STATUS: Record<CopyState, string> = {
  idle: '',
  copied: 'Copied to the clipboard.',
  unavailable: 'The clipboard is not available here: the value is selected, copy it with Ctrl+C (⌘C on a Mac).',
};

export function SecretOnce(p: { value: string; label: string; note?: string }) {
  const [state, setState] = useState<CopyState>('idle');
  const [id] = useState(() => newId('secret'));

  async function onCopy() {
    const result = await copy(p.value);
    if (result === 'unavailable') {
      const el = document.getElementById(id);
      if (el) getSelection()?.selectAllChildren(el);
    }
    setState(result);
  }

  return (
    <div class="panel secret-once">
      <p class="secret-label"><strong>{p.label}</strong></p>
      <p class="secret" id={id}>{p.value}</p>
      {p.note && <p class="hint">{p.note}</p>}
      <div class="row">
        <Button class="secondary" onClick={onCopy}>Copy</Button>
        <span role="status" class={state === 'copied' ? 'ok' : 'muted'}>{STATUS[state]}</span>
      </div>
    </div>
  );
}
