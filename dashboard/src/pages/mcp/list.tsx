// Every MCP proxy of the signed-in user, and the form that creates one (then opens it, where tools are discovered).
import { useState } from 'preact/hooks';
import { api, failure } from '../../api.ts';
import { ErrorLine } from '../../components/form.tsx';
import { useApi } from '../../components/use-api.ts';
import { href, navigate } from '../../router.ts';
import { readUpstream, UpstreamFields } from './upstream-fields.tsx';

export function McpList() {
  const list = useApi(() => api.call('GET /api/mcp'), []);
  return (
    <main>
      <h1>MCP proxies</h1>
      <ErrorLine message={list.error} />
      {list.data && (list.data.servers.length === 0 ? <p class="muted">No MCP proxies yet.</p> : (
        <div class="table-wrap">
          <table aria-label="Your MCP proxies">
            <thead><tr><th scope="col">Name</th><th scope="col">Upstream</th><th scope="col">Tools</th><th scope="col">Proxy host</th></tr></thead>
            <tbody>
              {list.data.servers.map((s) => (
                <tr key={s.id}>
                  <td><a href={href(`/mcp/${encodeURIComponent(s.id)}`)}>{s.name}</a></td>
                  <td class="wrap">{s.url}</td>
                  <td>{s.tools.length}</td>
                  <td class="wrap"><code>{s.proxyHost}</code></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
      <CreateMcp />
    </main>
  );
}

function CreateMcp() {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function submit(e: Event) {
    e.preventDefault();
    const v = readUpstream(e.currentTarget as HTMLFormElement);
    setBusy(true);
    const r = await api.call('POST /api/mcp', {
      body: { name: v.name, url: v.url, authType: v.authType, ...(v.authType === 'bearer' && v.authToken ? { authToken: v.authToken } : {}) },
    });
    setBusy(false);
    if (!r.ok) return setError(failure(r));
    navigate(`/mcp/${r.body.server.id}`);
  }
  return (
    <section class="panel" aria-labelledby="mcp-create">
      <h2 id="mcp-create">Create an MCP proxy</h2>
      <form onSubmit={submit} noValidate>
        <UpstreamFields />
        <ErrorLine message={error} />
        <button type="submit" disabled={busy}>Create MCP proxy</button>
      </form>
    </section>
  );
}
