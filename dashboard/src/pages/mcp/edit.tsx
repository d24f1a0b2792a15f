// Edits an MCP proxy's upstream (PATCH): name, URL, upstream auth. A token is sent only when one is typed, so an
// empty field keeps the stored one; switching to none makes the API delete it.
import type { ResponseOf } from '@tollgate/contract';
import { api, failure } from '../../api.ts';
import { EditPanel } from '../../components/edit-panel.tsx';
import { readUpstream, UpstreamFields } from './upstream-fields.tsx';

type McpRecord = ResponseOf<'GET /api/mcp/:id'>;

export function EditMcp(p: { server: McpRecord; onSaved: (s: McpRecord) => void }) {
  async function save(form: HTMLFormElement) {
    const v = readUpstream(form);
    const r = await api.call('PATCH /api/mcp/:id', {
      params: { id: p.server.id },
      body: { name: v.name, url: v.url, authType: v.authType, ...(v.authType === 'bearer' && v.authToken ? { authToken: v.authToken } : {}) },
    });
    if (!r.ok) return failure(r);
    // The PATCH answer has no pin; keep the one shown.
    p.onSaved({ ...r.body, pin: p.server.pin });
    return undefined;
  }
  return (
    <EditPanel summary="Edit upstream" save={save}>
      <UpstreamFields initial={p.server} />
    </EditPanel>
  );
}
