// Audit entries as a table (the overview's feed and the logs page). Optional fields are absent when empty
// (docs/audit-events.md); details are type-specific facts, shown as compact JSON.
import type { ResponseOf } from '@tollgate/contract';
import { utcMinute } from './format.ts';
import type { ProxyRef } from './proxy-names.ts';

export type AuditEntry = ResponseOf<'GET /api/logs'>['logs'][number];

function proxyOf(e: AuditEntry, names: Map<string, ProxyRef>): string {
  const id = e.mcp_uuid ?? e.llm_uuid;
  if (!id) return '—';
  const ref = names.get(id);
  return ref ? `${ref.name} (${ref.kind})` : `${e.mcp_uuid ? 'MCP' : 'LLM'} ${id.slice(0, 8)}`;
}

function details(d: Record<string, unknown>): string {
  const s = JSON.stringify(d);
  return s === '{}' ? '' : s.length > 240 ? `${s.slice(0, 240)}…` : s;
}

export function EventsTable(p: { caption: string; entries: AuditEntry[]; names: Map<string, ProxyRef> }) {
  if (!p.entries.length) return <p class="muted">No events.</p>;
  return (
    <table class="events">
      <caption>{p.caption}</caption>
      <thead>
        <tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Proxy</th><th scope="col">Tool or model</th><th scope="col">Rule</th><th scope="col">Client</th><th scope="col">Details</th></tr>
      </thead>
      <tbody>
        {p.entries.map((e, i) => (
          <tr key={`${e.timestamp}-${i}`}>
            <td class="nowrap">{utcMinute(e.timestamp)}</td>
            <td><span class={`event ${e.event_type}`}>{e.event_type}</span></td>
            <td>{proxyOf(e, p.names)}</td>
            <td>{e.tool ?? e.model ?? '—'}</td>
            <td>{e.rule_name ?? '—'}</td>
            <td>{e.client_ip || '—'}</td>
            <td class="details"><code>{details(e.details)}</code></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
