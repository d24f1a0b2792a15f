// 2FA: enrolment (POST /api/2fa/setup gives a secret and its otpauth:// URI, drawn here as a QR code; POST
// /api/2fa/verify with a code of it turns 2FA on) and turning it off with a current code. Whether it is on comes from
// the session (GET /api/auth/session), read again after each change.
import { useState } from 'preact/hooks';
import type { ResponseOf } from '@tollgate/contract';
import { api, failure } from '../../api.ts';
import { Button, ErrorLine } from '../../components/form.tsx';
import { QrCode } from '../../components/qr-code.tsx';
import { useSession } from '../../session.ts';
import { CodeForm } from './code-form.tsx';

type Setup = ResponseOf<'POST /api/2fa/setup'>;

function Enrolment(p: { setup: Setup; onDone(): Promise<void>; onCancel(): void }) {
  async function verify(code: string) {
    const r = await api.call('POST /api/2fa/verify', { body: { code } });
    if (!r.ok) return failure(r);
    await p.onDone();
    return undefined;
  }
  return (
    <div class="panel enrol">
      <ol>
        <li>Scan this code with your authenticator app:
          <div class="qr-box"><QrCode text={p.setup.otpauthUri} label="QR code of your new 2FA secret" /></div>
        </li>
        <li>Or enter the secret by hand: <code class="totp-secret">{p.setup.secret}</code></li>
        <li>Confirm with the code the app shows. 2FA stays off until then.</li>
      </ol>
      <CodeForm label="Code from your authenticator app" submit="Turn on 2FA" onCode={verify} />
      <Button class="link" onClick={p.onCancel}>Cancel</Button>
    </div>
  );
}

export function TwoFactor() {
  const { session, refresh } = useSession();
  const [setup, setSetup] = useState<Setup>();
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<string>();
  const on = session?.twoFactorEnabled ?? false;

  async function start() {
    setError(undefined);
    setDone(undefined);
    const r = await api.call('POST /api/2fa/setup');
    if (r.ok) setSetup(r.body);
    else setError(failure(r));
  }
  async function changed(message: string) {
    setSetup(undefined);
    await refresh();
    setDone(message);
  }
  async function disable(code: string) {
    const r = await api.call('POST /api/2fa/disable', { body: { code } });
    if (!r.ok) return failure(r);
    await changed('2FA is off. Sign-in needs only your password now.');
    return undefined;
  }

  return (
    <section aria-labelledby="account-2fa">
      <h2 id="account-2fa">Two-factor authentication</h2>
      <p class="twofa-state">{on ? <strong class="ok">2FA is on.</strong> : <strong>2FA is off.</strong>}{' '}
        {on ? 'Sign-in asks for a code of your authenticator app after the password.' : 'Sign-in needs only your password.'}</p>
      <p role="status" class="ok">{done}</p>
      <ErrorLine message={error} />
      {on && <CodeForm label="Current authentication code" submit="Turn off 2FA" danger onCode={disable} />}
      {!on && !setup && <Button onClick={start}>Set up 2FA</Button>}
      {!on && setup && <Enrolment setup={setup} onDone={() => changed('2FA is on. The next sign-in will ask for a code.')} onCancel={() => setSetup(undefined)} />}
    </section>
  );
}
