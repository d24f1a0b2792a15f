// One MCP proxy: where clients reach it, its upstream (edit, DNS pin), the tool catalog, synthetic resources, rules,
// and delete.
import { useState } from 'preact/hooks';
import { api, failure } from '../../api.ts';
import { ConfirmDelete } from '../../components/confirm-delete.tsx';
import { DnsPin } from '../../components/dns-pin.tsx';
import { ErrorLine } from '../../components/form.tsx';
import { RulesSection } from '../../components/rules/rules-section.tsx';
import { useApi } from '../../components/use-api.ts';
import { href, navigate } from '../../router.ts';
import { EditMcp } from './edit.tsx';
import { McpResources } from './resources.tsx';
import { McpTools } from './tools.tsx';
import { McpToolPinning } from './tool-pinning.tsx';

export function McpDetail({ id }: { id: string }) {
  const rec = useApi(() => api.call('GET /api/mcp/:id', { params: { id } }), [id]);
  const s = rec.data;
  // A discovery approves every pending tool change on the server: the pinning section reads its list again.
  const [discoveries, setDiscoveries] = useState(0);
  async function remove() {
    const r = await api.call('DELETE /api/mcp/:id', { params: { id } });
    if (r.ok) navigate('/mcp');
    return failure(r);
  }
  return (
    <main>
      <p><a href={href('/mcp')}>← MCP proxies</a></p>
      <ErrorLine message={rec.error} />
      {s && (
        <>
          <h1>{s.name}</h1>
          <section class="panel" aria-label="Connection">
            <p><span class="label">Proxy host: </span><code data-testid="proxy-host">{s.proxyHost}</code></p>
            <p class="hint">Clients send their client key as <code>Authorization: Bearer</code> to this host (or to the gateway's <code>/{s.id}/</code> path).</p>
            <p><span class="label">Upstream: </span><span class="wrap">{s.url}</span> ({s.authType === 'bearer' ? 'bearer token' : 'no upstream auth'})</p>
            <DnsPin pin={s.pin} reResolve={() => api.call('POST /api/mcp/:id/re-resolve', { params: { id } })} />
          </section>
          <EditMcp server={s} onSaved={rec.set} />
          {/* An approval pins new definitions: the catalog is shown again from the record read after it. */}
          <McpTools key={s.tools.map((t) => t.fingerprint ?? t.name).join()} id={id} tools={s.tools} onDiscovered={() => setDiscoveries((n) => n + 1)} />
          <McpToolPinning key={discoveries} id={id} onApproved={() => void rec.reload()} />
          <McpResources id={id} />
          <RulesSection kind="mcp" id={id} />
          <section aria-labelledby="mcp-delete">
            <h2 id="mcp-delete">Delete this proxy</h2>
            <p class="hint">Removes its tool and resource grants from every client key, its rules and its resources.</p>
            <ConfirmDelete what={`the MCP proxy ${s.name}`} label="Delete MCP proxy" onConfirm={remove} />
          </section>
        </>
      )}
    </main>
  );
}
