// The personal access token: whether one exists (GET /api/profile/token), and issuing or rotating it (POST
// /api/profile/token). The plaintext is in this component's state only, so leaving the page forgets it; a rotation
// is confirmed first because the old token stops working at once.
import { useEffect, useState } from 'preact/hooks';
import type { ResponseOf } from '@tollgate/contract';
import { api, failure } from '../../api.ts';
import { Button, ErrorLine } from '../../components/form.tsx';
import { SecretOnce } from '../../components/secret-once.tsx';

type Issued = ResponseOf<'POST /api/profile/token'>;

function IssuedToken(p: { issued: Issued }) {
  const note = 'Shown only now: store it where your scripts read secrets. It is gone when you leave this page.'
    + (p.issued.rotated ? ' The previous token no longer works.' : '');
  return <SecretOnce value={p.issued.token} label="Your new personal access token" note={note} />;
}

function RotateWarning(p: { busy: boolean; onConfirm(): void; onCancel(): void }) {
  return (
    <div class="panel warn" role="alert">
      <p><strong>Rotating replaces your token.</strong> The current one stops working at once, everywhere it is used
        (scripts, Terraform, the operator): give them the new one.</p>
      <div class="row">
        <Button class="danger" busy={p.busy} onClick={p.onConfirm}>Rotate now</Button>
        <Button class="secondary" onClick={p.onCancel}>Cancel</Button>
      </div>
    </div>
  );
}

export function PersonalToken() {
  const [hasToken, setHasToken] = useState<boolean>();
  const [issued, setIssued] = useState<Issued>();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  useEffect(() => {
    void api.call('GET /api/profile/token').then((r) => (r.ok ? setHasToken(r.body.hasToken) : setError(failure(r))));
  }, []);

  async function issue() {
    setBusy(true);
    setError(undefined);
    const r = await api.call('POST /api/profile/token');
    setBusy(false);
    setConfirming(false);
    if (!r.ok) return setError(failure(r));
    setIssued(r.body);
    setHasToken(true);
  }

  return (
    <section aria-labelledby="account-pat">
      <h2 id="account-pat">Personal access token</h2>
      <p>A token for scripts, Terraform, the operator and curl (<code>Authorization: Bearer svc_pat_…</code>). It can read
        and change everything you own; it cannot touch 2FA or rotate itself.</p>
      {hasToken !== undefined && <p class="pat-state">{hasToken ? 'You have a token.' : 'You have no token yet.'}</p>}
      <ErrorLine message={error} />
      {issued && <IssuedToken issued={issued} />}
      {hasToken === false && <Button busy={busy} onClick={issue}>Issue a token</Button>}
      {hasToken && !confirming && <Button class="secondary" onClick={() => setConfirming(true)}>Rotate token…</Button>}
      {hasToken && confirming && <RotateWarning busy={busy} onConfirm={issue} onCancel={() => setConfirming(false)} />}
    </section>
  );
}
