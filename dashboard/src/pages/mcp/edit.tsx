// Edits an MCP proxy's upstream (PATCH): name, URL, upstream auth. A token is sent only when one is typed, so an
// empty field keeps the stored one; switching to none makes the API delete it.
import { useState } from 'preact/hooks';
import type { ResponseOf } from '@tollgate/contract';
import { api, failure } from '../../api.ts';
import { ErrorLine } from '../../components/form.tsx';
import { readUpstream, UpstreamFields } from './upstream-fields.tsx';

type McpRecord = ResponseOf<'GET /api/mcp/:id'>;

export function EditMcp(p: { server: McpRecord; onSaved: (s: McpRecord) => void }) {
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  async function submit(e: Event) {
    e.preventDefault();
    const v = readUpstream(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setSaved(false);
    const r = await api.call('PATCH /api/mcp/:id', {
      params: { id: p.server.id },
      body: { name: v.name, url: v.url, authType: v.authType, ...(v.authType === 'bearer' && v.authToken ? { authToken: v.authToken } : {}) },
    });
    setBusy(false);
    setError(failure(r));
    if (r.ok) {
      // The PATCH answer has no pin; keep the one shown.
      p.onSaved({ ...r.body, pin: p.server.pin });
      setSaved(true);
    }
  }
  return (
    <details class="panel">
      <summary>Edit upstream</summary>
      <form onSubmit={submit} noValidate>
        <UpstreamFields initial={p.server} />
        <ErrorLine message={error} />
        <div class="row">
          <button type="submit" disabled={busy}>Save changes</button>
          {saved && <span class="ok" role="status">Saved.</span>}
        </div>
      </form>
    </details>
  );
}
