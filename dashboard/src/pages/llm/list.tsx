// Every LLM proxy of the signed-in user, and the form that creates one.
import { useState } from 'preact/hooks';
import { api, failure } from '../../api.ts';
import { ErrorLine } from '../../components/form.tsx';
import { useApi } from '../../components/use-api.ts';
import { href, navigate } from '../../router.ts';
import { readSettings, SettingsFields } from './settings-fields.tsx';

export function LlmList() {
  const list = useApi(() => api.call('GET /api/llm'), []);
  return (
    <main>
      <h1>LLM proxies</h1>
      <ErrorLine message={list.error} />
      {list.data && (list.data.proxies.length === 0 ? <p class="muted">No LLM proxies yet.</p> : (
        <div class="table-wrap">
          <table aria-label="Your LLM proxies">
            <thead><tr><th scope="col">Name</th><th scope="col">Provider</th><th scope="col">Allowed models</th><th scope="col">Budget</th><th scope="col">Proxy host</th></tr></thead>
            <tbody>
              {list.data.proxies.map((l) => (
                <tr key={l.id}>
                  <td><a href={href(`/llm/${encodeURIComponent(l.id)}`)}>{l.name}</a></td>
                  <td>{l.provider}</td>
                  <td>{l.allowedModels.length ? l.allowedModels.join(', ') : 'all'}</td>
                  <td>{l.budget ? `$${l.budget.capUsd} ${l.budget.period}` : 'none'}</td>
                  <td class="wrap"><code>{l.proxyHost}</code></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
      <CreateLlm />
    </main>
  );
}

function CreateLlm() {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    const r = await api.call('POST /api/llm', { body: readSettings(e.currentTarget as HTMLFormElement) });
    setBusy(false);
    if (!r.ok) return setError(failure(r));
    navigate(`/llm/${r.body.id}`);
  }
  return (
    <section class="panel" aria-labelledby="llm-create">
      <h2 id="llm-create">Create an LLM proxy</h2>
      <form onSubmit={submit} noValidate>
        <SettingsFields />
        <ErrorLine message={error} />
        <button type="submit" disabled={busy}>Create LLM proxy</button>
      </form>
    </section>
  );
}
