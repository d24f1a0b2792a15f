// Conversation logs (#/conversations/<llm id>[/<log id>]): for an LLM proxy with logConversations on, what was asked
// and answered (kept 7 days, sealed at rest). The proxy is chosen here; the LLM pages own turning logging on.
import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorLine, newId } from '../../components/form.tsx';
import { LlmSelect, type LlmProxy } from '../../components/llm-select.tsx';
import { useApi } from '../../components/use-api.ts';
import { href, navigate, type Route } from '../../router.ts';
import { ConversationList } from './list.tsx';
import { ConversationView } from './one.tsx';

function Picker(p: { proxies: LlmProxy[]; selected: string }) {
  const [id] = useState(() => newId('llm'));
  function apply(e: Event) {
    e.preventDefault();
    const llm = String(new FormData(e.currentTarget as HTMLFormElement).get('llm') ?? '');
    if (llm) navigate(`/conversations/${encodeURIComponent(llm)}`);
  }
  return (
    <form class="row" onSubmit={apply} aria-label="Choose the proxy">
      <LlmSelect id={id} proxies={p.proxies} selected={p.selected} note={(x) => (x.logConversations ? '' : ', logging off')} />
      <div class="field actions"><button type="submit">Show</button></div>
    </form>
  );
}

function Body(p: { llm: string; logId: string | undefined; proxies: LlmProxy[]; before: string | undefined }) {
  const proxy = p.proxies.find((x) => x.id === p.llm);
  if (p.logId) return <ConversationView llm={p.llm} logId={p.logId} />;
  return (
    <>
      <Picker key={p.llm} proxies={p.proxies} selected={p.llm} />
      {proxy && !proxy.logConversations && (
        <p class="panel">Conversation logging is off for {proxy.name}: nothing new is recorded. Turn it on in the proxy&apos;s settings.</p>
      )}
      <ConversationList llm={p.llm} before={p.before} />
    </>
  );
}

export function ConversationsPage(p: { route: Route }) {
  const list = useApi(() => api.call('GET /api/llm'), []);
  const proxies = list.data?.proxies ?? [];
  const [, asked, logId] = p.route.parts;
  const llm = asked ?? (proxies.find((x) => x.logConversations) ?? proxies[0])?.id;
  return (
    <main class="conversations-page">
      <h1>Conversations</h1>
      <ErrorLine message={list.error} />
      {list.data && !proxies.length && <p>No LLM proxies yet: <a href={href('/llm')}>create one</a> and turn on conversation logging.</p>}
      {llm && <Body llm={llm} logId={logId} proxies={proxies} before={p.route.query.get('before') ?? undefined} />}
    </main>
  );
}
