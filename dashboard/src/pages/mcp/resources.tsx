// Synthetic resources of an MCP proxy: static payloads the gateway serves through resources/list and resources/read
// without contacting the upstream.
import { useState } from 'preact/hooks';
import { api, failure } from '../../api.ts';
import { ConfirmDelete } from '../../components/confirm-delete.tsx';
import { ErrorLine, Field, newId } from '../../components/form.tsx';
import { useApi } from '../../components/use-api.ts';

export function McpResources({ id }: { id: string }) {
  const list = useApi(() => api.call('GET /api/mcp/:id/resources', { params: { id } }), [id]);
  async function remove(rid: string) {
    const r = await api.call('DELETE /api/mcp/:id/resources/:rid', { params: { id, rid } });
    if (r.ok) await list.reload();
    return failure(r);
  }
  const resources = list.data?.resources ?? [];
  return (
    <section aria-labelledby="mcp-resources">
      <h2 id="mcp-resources">Synthetic resources</h2>
      <ErrorLine message={list.error} />
      {resources.length === 0 ? <p class="muted">No synthetic resources.</p> : (
        <div class="table-wrap">
          <table aria-label="Synthetic resources">
            <thead><tr><th scope="col">Name</th><th scope="col">URI</th><th scope="col">MIME type</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
            <tbody>
              {resources.map((r) => (
                <tr key={r.id}>
                  <td>{r.name}</td><td class="wrap"><code>{r.uri}</code></td><td>{r.mimeType}</td><td>{r.description ?? ''}</td>
                  <td><ConfirmDelete what={`the resource ${r.name}`} onConfirm={() => remove(r.id)} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <CreateResource id={id} onCreated={list.reload} />
    </section>
  );
}

function CreateResource(p: { id: string; onCreated: () => Promise<void> }) {
  const [ids] = useState(() => ({ uri: newId('res-uri'), name: newId('res-name'), desc: newId('res-desc'), mime: newId('res-mime'), content: newId('res-content') }));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function submit(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const description = String(f.get('description') ?? '');
    setBusy(true);
    const r = await api.call('POST /api/mcp/:id/resources', {
      params: { id: p.id },
      body: {
        uri: String(f.get('uri') ?? ''), name: String(f.get('name') ?? ''), mimeType: String(f.get('mimeType') ?? ''),
        content: String(f.get('content') ?? ''), ...(description ? { description } : {}),
      },
    });
    setBusy(false);
    setError(failure(r));
    if (!r.ok) return;
    form.reset();
    await p.onCreated();
  }
  return (
    <details class="panel">
      <summary>Add a synthetic resource</summary>
      <form onSubmit={submit} noValidate>
        <Field label="URI" id={ids.uri}><input id={ids.uri} name="uri" required placeholder="docs://readme" /></Field>
        <Field label="Resource name" id={ids.name}><input id={ids.name} name="name" required /></Field>
        <Field label="Description" id={ids.desc}><input id={ids.desc} name="description" /></Field>
        <Field label="MIME type" id={ids.mime}><input id={ids.mime} name="mimeType" defaultValue="text/plain" /></Field>
        <Field label="Content" id={ids.content}><textarea id={ids.content} name="content" rows={5} cols={60} /></Field>
        <ErrorLine message={error} />
        <button type="submit" disabled={busy}>Add resource</button>
      </form>
    </details>
  );
}
