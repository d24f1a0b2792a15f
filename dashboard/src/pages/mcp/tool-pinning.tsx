// Tool pinning of one MCP proxy (docs/mcp-servers.md, "Tool pinning"): the setting, the pending differences between
// the upstream's tool definitions and the approved ones with their diff, and approval (one tool or all). A gateway
// records a difference while the page is open, so the pending list can be read again without leaving the page.
import { useState } from 'preact/hooks';
import { TOOL_PINNING_MODES, type ResponseOf, type ToolChange, type ToolPinningMode } from '@tollgate/contract';
import { api, failure } from '../../api.ts';
import { Button, ErrorLine, Field, newId } from '../../components/form.tsx';
import { useApi } from '../../components/use-api.ts';

type Changes = ResponseOf<'GET /api/mcp/:id/tool-changes'>;

const MODE_HINT: Record<ToolPinningMode, string> = {
  off: 'Nothing is compared (default).',
  warn: 'Changed tools pass; each change is recorded as a tool_changed event.',
  hide: 'Changed and new tools are dropped from tools/list and their calls refused until approved.',
  block: 'Every request of this proxy is refused while a change is pending.',
};

/** `onApproved` runs after an approval changed the pinned catalog, so the page can show the definitions now approved. */
export function McpToolPinning(p: { id: string; onApproved?: () => void }) {
  const changes = useApi(() => api.call('GET /api/mcp/:id/tool-changes', { params: { id: p.id } }), [p.id]);
  const [ids] = useState(() => ({ mode: newId('pin-mode') }));
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState<string>();
  const [busy, setBusy] = useState(false);
  const data = changes.data;

  async function setMode(mode: ToolPinningMode) {
    setBusy(true);
    const r = await api.call('PATCH /api/mcp/:id', { params: { id: p.id }, body: { toolPinning: mode } });
    setBusy(false);
    setError(failure(r));
    if (r.ok) {
      setStatus(`Tool pinning set to ${mode}.`);
      await changes.reload();
    }
  }
  /** Approves the definitions shown (by fingerprint): one the upstream changed again meanwhile is refused, not approved unseen. */
  async function approve(shown: ToolChange[]) {
    setBusy(true);
    const fingerprints = Object.fromEntries(shown.map((c) => [c.tool, c.fingerprint]));
    const r = await api.call('POST /api/mcp/:id/tool-changes/approve', { params: { id: p.id }, body: { fingerprints } });
    setBusy(false);
    setError(failure(r));
    if (!r.ok && r.error.status === 409) await changes.reload();
    if (r.ok) {
      setStatus(`Approved: ${r.body.approved.map((c) => c.tool).join(', ') || 'nothing pending'}.`);
      changes.set({ toolPinning: data!.toolPinning, pending: r.body.pending } satisfies Changes);
      if (r.body.approved.length) p.onApproved?.();
    }
  }
  async function check() {
    setStatus(undefined);
    await changes.reload();
  }
  return (
    <section aria-labelledby="mcp-pinning">
      <h2 id="mcp-pinning">Tool pinning</h2>
      <ErrorLine message={changes.error ?? error} />
      {data && (
        <>
          <Field label="When a tool definition changes upstream" id={ids.mode} hint={MODE_HINT[data.toolPinning]}>
            <select id={ids.mode} value={data.toolPinning} disabled={busy} aria-describedby={`${ids.mode}-hint`}
              onChange={(e) => void setMode(e.currentTarget.value as ToolPinningMode)}>
              {TOOL_PINNING_MODES.map((m) => <option key={m} value={m}>{m}</option>)}
            </select>
          </Field>
          {status && <p class="ok" role="status">{status}</p>}
          <div class="row">
            <Button class="secondary" busy={busy || changes.loading} onClick={check}>Reload pending changes</Button>
            {data.pending.length > 0 && <Button busy={busy} onClick={() => approve(data.pending)}>Approve all changes</Button>}
          </div>
          {data.pending.length === 0 ? <p class="muted">No pending tool changes.</p>
            : data.pending.map((c) => <PendingChange key={c.tool} change={c} busy={busy} onApprove={() => approve([c])} />)}
        </>
      )}
    </section>
  );
}

function PendingChange(p: { change: ToolChange; busy: boolean; onApprove: () => void }) {
  const c = p.change;
  return (
    <div class="panel" data-testid="tool-change">
      <p>
        <code>{c.tool}</code> {c.change === 'added' ? 'was added upstream' : 'changed upstream'} ({new Date(c.detectedAt * 1000).toISOString()})
      </p>
      <div class="table-wrap">
        <table aria-label={`Changes of ${c.tool}`}>
          <thead><tr><th scope="col">Member</th><th scope="col">Approved</th><th scope="col">Now</th></tr></thead>
          <tbody>
            {c.diff.map((d) => (
              <tr key={d.path}><td><code>{d.path}</code></td><td class="wrap">{d.before ?? '(absent)'}</td><td class="wrap">{d.after ?? '(absent)'}</td></tr>
            ))}
          </tbody>
        </table>
      </div>
      {c.diffOmitted > 0 && <p class="hint">{c.diffOmitted} more differences not shown.</p>}
      <Button busy={p.busy} onClick={p.onApprove} aria-label={`Approve the change of ${c.tool}`}>Approve</Button>
    </div>
  );
}
