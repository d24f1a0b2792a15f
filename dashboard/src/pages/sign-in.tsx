// Sign-in with email and password (the session channel), then the 2FA challenge when the account has 2FA on.
import { useState } from 'preact/hooks';
import { api, failure } from '../api.ts';
import { ErrorLine, Field, newId } from '../components/form.tsx';
import { navigate } from '../router.ts';
import { useSession } from '../session.ts';

export function SignInPage() {
  const { refresh } = useSession();
  const [ids] = useState(() => ({ email: newId('email'), password: newId('password'), code: newId('code') }));
  const [step, setStep] = useState<'password' | 'code'>('password');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    try {
      if (step === 'password') {
        const r = await api.call('POST /api/auth/login', { body: { email: String(form.get('email')), password: String(form.get('password')) } });
        if (!r.ok) return setError(failure(r));
        if (r.body.mfaRequired) return setStep('code');
      } else {
        const r = await api.call('POST /api/2fa/challenge', { body: { code: String(form.get('code')) } });
        if (!r.ok) return setError(failure(r));
      }
      await refresh();
      navigate('/');
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="narrow">
      <h1>Sign in to Tollgate</h1>
      <form onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        {step === 'password' ? (
          <>
            <Field label="Email" id={ids.email}><input id={ids.email} name="email" type="email" autocomplete="username" required /></Field>
            <Field label="Password" id={ids.password}><input id={ids.password} name="password" type="password" autocomplete="current-password" required /></Field>
          </>
        ) : (
          <Field label="Authentication code" id={ids.code} hint="The 6-digit code of your authenticator app.">
            <input id={ids.code} name="code" inputMode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" required autoFocus />
          </Field>
        )}
        <ErrorLine message={error} />
        <button type="submit" disabled={busy}>{step === 'password' ? 'Sign in' : 'Verify'}</button>
      </form>
    </main>
  );
}
