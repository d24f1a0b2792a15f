// One page of a proxy's conversation logs, most recent first. The API pages by cursor (`before=<log id>`): the page
// asks for one row more than it shows to know whether an older page exists.
import type { ResponseOf } from '@tollgate/contract';
import { api } from '../../api.ts';
import { ErrorLine } from '../../components/form.tsx';
import { count, usd, utcMinute } from '../../components/format.ts';
import { useApi } from '../../components/use-api.ts';
import { href } from '../../router.ts';

export const PAGE = 25;

type Entry = ResponseOf<'GET /api/llm/:id/logs'>['logs'][number];

function LogTable(p: { logs: Entry[]; base: string }) {
  return (
    <table class="conversations">
      <caption>Conversation logs, most recent first</caption>
      <thead><tr><th scope="col">Time</th><th scope="col">Model</th><th scope="col">Request</th><th scope="col">Response</th><th scope="col">Tokens</th><th scope="col">Cost</th><th scope="col">Status</th></tr></thead>
      <tbody>
        {p.logs.map((l) => (
          <tr key={l.id}>
            <td class="nowrap"><a href={href(`${p.base}/${encodeURIComponent(l.id)}`)} aria-label={`Open the conversation of ${utcMinute(l.timestamp)}`}>{utcMinute(l.timestamp)}</a></td>
            <td>{l.model}</td>
            <td class="summary">{l.requestSummary}</td>
            <td class="summary">{l.responseSummary}</td>
            <td>{count(l.tokens)}</td>
            <td>{usd(l.costCents)}</td>
            <td>{l.status}{l.streamed ? ' (stream)' : ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Pager(p: { base: string; before: string | undefined; older: string | undefined }) {
  return (
    <nav aria-label="Pages of conversations" class="pager">
      {p.before && <a href={href(p.base)}>Newest</a>}
      {p.older && <a href={href(p.base, { before: p.older })} rel="next">Older</a>}
    </nav>
  );
}

export function ConversationList(p: { llm: string; before: string | undefined }) {
  const { llm, before } = p;
  const r = useApi(() => api.call('GET /api/llm/:id/logs', { params: { id: llm }, query: { limit: PAGE + 1, before } }), [llm, before]);
  const logs = r.data?.logs.slice(0, PAGE) ?? [];
  const older = r.data && r.data.logs.length > PAGE ? logs.at(-1)?.id : undefined;
  const base = `/conversations/${encodeURIComponent(llm)}`;
  return (
    <section aria-labelledby="conv-h">
      <h2 id="conv-h">{before ? 'Older conversations' : 'Latest conversations'}</h2>
      <ErrorLine message={r.error} />
      {r.data && !logs.length && <p class="muted">No conversation logs{before ? ' before this one' : ''}.</p>}
      {logs.length > 0 && <LogTable logs={logs} base={base} />}
      <Pager base={base} before={before} older={older} />
    </section>
  );
}
