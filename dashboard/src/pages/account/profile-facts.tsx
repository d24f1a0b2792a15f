// Who the account is: GET /api/profile (name, e-mail, the consumer's tags).
import { useEffect, useState } from 'preact/hooks';
import type { ResponseOf } from '@tollgate/contract';
import { api, failure } from '../../api.ts';
import { ErrorLine } from '../../components/form.tsx';

type Profile = ResponseOf<'GET /api/profile'>;

export function ProfileFacts() {
  const [profile, setProfile] = useState<Profile>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    void api.call('GET /api/profile').then((r) => (r.ok ? setProfile(r.body) : setError(failure(r))));
  }, []);

  return (
    <section aria-labelledby="account-profile">
      <h2 id="account-profile">Profile</h2>
      <ErrorLine message={error} />
      {profile && (
        <dl class="facts">
          <dt>Name</dt><dd>{profile.name ?? <span class="muted">not set</span>}</dd>
          <dt>E-mail</dt><dd>{profile.email}</dd>
          <dt>Tags</dt>
          <dd>{profile.tags.length ? <ul class="tags">{profile.tags.map((t) => <li key={t}><code>{t}</code></li>)}</ul> : <span class="muted">none</span>}</dd>
        </dl>
      )}
    </section>
  );
}
