// The shell: who is signed in, the navigation, and the page of the current hash route. Signed out, every route shows
// the sign-in form.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import { NotFoundPage } from './pages/not-found.tsx';
import { PAGES } from './pages/registry.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { navigate, useRoute } from './router.ts';
import { loadSession, SessionContext, type SessionInfo } from './session.ts';

export function App() {
  const route = useRoute();
  const [session, setSession] = useState<SessionInfo>();
  const [loaded, setLoaded] = useState(false);
  const refresh = async () => { setSession(await loadSession()); setLoaded(true); };
  useEffect(() => { void refresh(); }, []);

  if (!loaded) return <main aria-busy="true"><p>Loading…</p></main>;
  const state = { session, refresh };
  if (!session) return <SessionContext.Provider value={state}><SignInPage /></SessionContext.Provider>;

  const page = PAGES.find((p) => p.segment === (route.parts[0] ?? ''));
  const Page = page?.component ?? NotFoundPage;
  async function signOut() {
    await api.call('POST /api/auth/logout');
    setSession(undefined);
    navigate('/');
  }
  return (
    <SessionContext.Provider value={state}>
      {/* Not href="#main": the fragment is the route. */}
      <a class="skip" href={location.hash || '#/'} onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to content</a>
      <header class="top">
        <span class="brand">Tollgate</span>
        <nav aria-label="Main">
          <ul>
            {PAGES.filter((p) => p.nav).map((p) => (
              <li key={p.segment}><a href={`#/${p.segment}`} aria-current={page === p ? 'page' : undefined}>{p.nav}</a></li>
            ))}
          </ul>
        </nav>
        <span class="who">{session.user.email}</span>
        <button type="button" class="link" onClick={signOut}>Sign out</button>
      </header>
      <div id="main" tabIndex={-1}><Page route={route} /></div>
    </SessionContext.Provider>
  );
}
