// One conversation log with its prompt (the request body as forwarded, pretty-printed when it is JSON) and its
// completion (the generated text).
import { api } from '../../api.ts';
import { ErrorLine } from '../../components/form.tsx';
import { count, usd, utcMinute } from '../../components/format.ts';
import { useApi } from '../../components/use-api.ts';
import { href } from '../../router.ts';

function pretty(s: string): string {
  try { return JSON.stringify(JSON.parse(s), null, 2); } catch { return s; }
}

export function ConversationView(p: { llm: string; logId: string }) {
  const r = useApi(() => api.call('GET /api/llm/:id/logs/:logId', { params: { id: p.llm, logId: p.logId } }), [p.llm, p.logId]);
  const l = r.data;
  return (
    <section aria-labelledby="one-h">
      <p><a href={href(`/conversations/${encodeURIComponent(p.llm)}`)}>Back to the list</a></p>
      <h2 id="one-h">Conversation{l ? ` of ${utcMinute(l.timestamp)}` : ''}</h2>
      <ErrorLine message={r.error} />
      {l && (
        <>
          <dl class="facts">
            <dt>Model</dt><dd>{l.model}</dd>
            <dt>Status</dt><dd>{l.status}{l.streamed ? ' (streamed)' : ''}</dd>
            <dt>Tokens</dt><dd>{count(l.inputTokens)} in ({count(l.cachedInputTokens)} cached), {count(l.outputTokens)} out</dd>
            <dt>Cost</dt><dd>{usd(l.costCents)} (pricing {l.pricingVersion})</dd>
            <dt>Key</dt><dd>{l.credentialId ?? 'none (JWT)'}</dd>
          </dl>
          <h3>Prompt</h3>
          <pre class="wrap prompt">{pretty(l.prompt)}</pre>
          <h3>Completion</h3>
          <pre class="wrap completion">{l.completion}</pre>
        </>
      )}
    </section>
  );
}
