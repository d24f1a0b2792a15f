// One LLM proxy: where clients reach it, its settings (edit), the budget's spend bar, the DNS pin of the provider
// host, per-key budgets, rules, and delete.
import { useState } from 'preact/hooks';
import type { ResponseOf } from '@tollgate/contract';
import { api, failure } from '../../api.ts';
import { ConfirmDelete } from '../../components/confirm-delete.tsx';
import { DnsPin } from '../../components/dns-pin.tsx';
import { EditPanel } from '../../components/edit-panel.tsx';
import { ErrorLine } from '../../components/form.tsx';
import { RulesSection } from '../../components/rules/rules-section.tsx';
import { useApi } from '../../components/use-api.ts';
import { href, navigate } from '../../router.ts';
import { KeyBudgets } from './key-budgets.tsx';
import { readSettingsPatch, SettingsFields } from './settings-fields.tsx';
import { SpendBar } from './spend.tsx';

type LlmRecord = ResponseOf<'GET /api/llm/:id'>;

export function LlmDetail({ id }: { id: string }) {
  const rec = useApi(() => api.call('GET /api/llm/:id', { params: { id } }), [id]);
  const [version, setVersion] = useState(0);
  const l = rec.data;
  async function remove() {
    const r = await api.call('DELETE /api/llm/:id', { params: { id } });
    if (r.ok) navigate('/llm');
    return failure(r);
  }
  return (
    <main>
      <p><a href={href('/llm')}>← LLM proxies</a></p>
      <ErrorLine message={rec.error} />
      {l && (
        <>
          <h1>{l.name}</h1>
          <section class="panel" aria-label="Connection">
            <p><span class="label">Proxy host: </span><code data-testid="proxy-host">{l.proxyHost}</code></p>
            <p class="hint">Clients call the provider's own paths on this host (or under the gateway's <code>/{l.id}/</code> path) with a client key.</p>
            <p><span class="label">Provider: </span>{l.provider} (<span class="wrap">{l.upstreamUrl}</span>)</p>
            <p><span class="label">Allowed models: </span>{l.allowedModels.length ? l.allowedModels.join(', ') : 'every model'}; default {l.defaultModel ?? 'none'}</p>
            <DnsPin pin={l.pin} reResolve={() => api.call('POST /api/llm/:id/re-resolve', { params: { id } })} />
          </section>
          <SpendBar id={id} version={version} />
          <EditLlm proxy={l} onSaved={(r) => { rec.set(r); setVersion(version + 1); }} />
          <KeyBudgets id={id} />
          <RulesSection kind="llm" id={id} />
          <section aria-labelledby="llm-delete">
            <h2 id="llm-delete">Delete this proxy</h2>
            <p class="hint">Removes its model grants from every client key, its per-key budgets, usage history and conversation logs.</p>
            <ConfirmDelete what={`the LLM proxy ${l.name}`} label="Delete LLM proxy" onConfirm={remove} />
          </section>
        </>
      )}
    </main>
  );
}

function EditLlm(p: { proxy: LlmRecord; onSaved: (r: LlmRecord) => void }) {
  async function save(form: HTMLFormElement) {
    const r = await api.call('PATCH /api/llm/:id', { params: { id: p.proxy.id }, body: readSettingsPatch(form) });
    if (!r.ok) return failure(r);
    // The PATCH answer has no pin; keep the one shown. The key fields are write-only: empty them.
    p.onSaved({ ...r.body, pin: p.proxy.pin });
    const key = form.elements.namedItem('providerKey') as HTMLInputElement | null;
    const drop = form.elements.namedItem('dropKey') as HTMLInputElement | null;
    if (key) key.value = '';
    if (drop) drop.checked = false;
    return undefined;
  }
  return (
    <EditPanel summary="Edit settings and budget" save={save}>
      <SettingsFields initial={p.proxy} />
    </EditPanel>
  );
}
