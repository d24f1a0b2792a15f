// The upstream's tool catalog: discovery (the API connects to the upstream and stores its tools/list) and, per tool,
// draining the responses static_cache rules hold for it.
import { useState } from 'preact/hooks';
import type { ResponseOf } from '@tollgate/contract';
import { api, failure } from '../../api.ts';
import { Button, ErrorLine } from '../../components/form.tsx';

type Tool = ResponseOf<'POST /api/mcp/:id/tools'>['tools'][number];

export function McpTools(p: { id: string; tools: Tool[]; onDiscovered?: () => void }) {
  const [tools, setTools] = useState(p.tools);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState<string>();
  async function discover() {
    setBusy(true);
    setStatus(undefined);
    const r = await api.call('POST /api/mcp/:id/tools', { params: { id: p.id } });
    setBusy(false);
    setError(failure(r));
    if (r.ok) {
      setTools(r.body.tools);
      setStatus(`Discovered ${r.body.tools.length} tool${r.body.tools.length === 1 ? '' : 's'}.`);
      p.onDiscovered?.();
    }
  }
  async function drain(tool: string) {
    const r = await api.call('DELETE /api/mcp/:id/cache', { params: { id: p.id }, query: { tool } });
    setError(failure(r));
    if (r.ok) setStatus(`Cache of ${tool} drained: ${r.body.dropped} cached response${r.body.dropped === 1 ? '' : 's'} dropped.`);
  }
  return (
    <section aria-labelledby="mcp-tools">
      <h2 id="mcp-tools">Tools</h2>
      <div class="row">
        <Button busy={busy} onClick={discover}>Discover tools</Button>
        {status && <span class="ok" role="status">{status}</span>}
      </div>
      <ErrorLine message={error} />
      {tools.length === 0 ? <p class="muted">No tools discovered yet.</p> : (
        <div class="table-wrap">
          <table aria-label="Tool catalog">
            <thead><tr><th scope="col">Name</th><th scope="col">Description</th><th scope="col">Cache</th></tr></thead>
            <tbody>
              {tools.map((t) => (
                <tr key={t.name}>
                  <td><code>{t.name}</code></td>
                  <td>{t.description}</td>
                  <td><Button class="secondary" onClick={() => drain(t.name)} aria-label={`Drain cache of ${t.name}`}>Drain cache</Button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
