// The permissions picker of a client key, built from what the user owns: each MCP proxy's discovered tools and
// synthetic resources, each LLM proxy's allowed models, and "*" for everything on a proxy.
import { useState } from 'preact/hooks';
import type { ResponseOf } from '@tollgate/contract';
import { Field, newId } from '../../components/form.tsx';
import { href } from '../../router.ts';
import { toggled, type Grants } from './grants.ts';

type Mcp = ResponseOf<'GET /api/mcp'>['servers'][number];
type Llm = ResponseOf<'GET /api/llm'>['proxies'][number];

export function PermissionsPicker(p: { mcps: Mcp[]; llms: Llm[]; value: Grants; onChange: (g: Grants) => void }) {
  const [tagsId] = useState(() => newId('custom-tags'));
  const setMcp = (id: string, v: Grants['mcp'][string]) => p.onChange({ ...p.value, mcp: { ...p.value.mcp, [id]: v } });
  const setLlm = (id: string, v: Grants['llm'][string]) => p.onChange({ ...p.value, llm: { ...p.value.llm, [id]: v } });
  return (
    <div class="picker">
      {p.mcps.length + p.llms.length === 0 && <p class="muted">You have no proxies yet: a key without permissions reaches nothing.</p>}
      {p.mcps.map((m) => <McpGrant key={m.id} mcp={m} value={p.value.mcp[m.id] ?? { tools: [], resources: [] }} onChange={(v) => setMcp(m.id, v)} />)}
      {p.llms.map((l) => <LlmGrant key={l.id} llm={l} value={p.value.llm[l.id] ?? { models: [], other: '' }} onChange={(v) => setLlm(l.id, v)} />)}
      <Field label="Custom tags" id={tagsId} hint="Optional free-form tags, one per line or comma-separated.">
        <textarea id={tagsId} rows={2} cols={40} value={p.value.customTags} aria-describedby={`${tagsId}-hint`} onInput={(e) => p.onChange({ ...p.value, customTags: e.currentTarget.value })} />
      </Field>
    </div>
  );
}

function Check(p: { label: string; checked: boolean; disabled?: boolean; onChange: (on: boolean) => void }) {
  return <label class="check"><input type="checkbox" checked={p.checked} disabled={p.disabled} onChange={(e) => p.onChange(e.currentTarget.checked)} /> {p.label}</label>;
}

function McpGrant(p: { mcp: Mcp; value: Grants['mcp'][string]; onChange: (v: Grants['mcp'][string]) => void }) {
  const { tools, resources } = p.value;
  const allTools = tools.includes('*');
  const allResources = resources.includes('*');
  return (
    <fieldset class="grant">
      <legend>MCP proxy {p.mcp.name}</legend>
      <div class="option-grid" role="group" aria-label={`Tools of ${p.mcp.name}`}>
        <span class="label" aria-hidden="true">Tools:</span>
        <Check label="All tools (*)" checked={allTools} onChange={(on) => p.onChange({ ...p.value, tools: toggled(tools, '*', on) })} />
        {p.mcp.tools.map((t) => (
          <Check key={t.name} label={t.name} checked={allTools || tools.includes(t.name)} disabled={allTools} onChange={(on) => p.onChange({ ...p.value, tools: toggled(tools, t.name, on) })} />
        ))}
      </div>
      {p.mcp.tools.length === 0 && <p class="hint">No tools discovered yet: <a href={href(`/mcp/${encodeURIComponent(p.mcp.id)}`)}>discover them</a> to grant single tools.</p>}
      <div class="option-grid" role="group" aria-label={`Resources of ${p.mcp.name}`}>
        <span class="label" aria-hidden="true">Resources:</span>
        <Check label="All resources (*)" checked={allResources} onChange={(on) => p.onChange({ ...p.value, resources: toggled(resources, '*', on) })} />
        {p.mcp.resources.map((r) => (
          <Check key={r.id} label={r.name} checked={allResources || resources.includes(r.id)} disabled={allResources} onChange={(on) => p.onChange({ ...p.value, resources: toggled(resources, r.id, on) })} />
        ))}
      </div>
    </fieldset>
  );
}

function LlmGrant(p: { llm: Llm; value: Grants['llm'][string]; onChange: (v: Grants['llm'][string]) => void }) {
  const [otherId] = useState(() => newId('other-models'));
  const { models } = p.value;
  const any = models.includes('*');
  return (
    <fieldset class="grant">
      <legend>LLM proxy {p.llm.name}</legend>
      <div class="option-grid" role="group" aria-label={`Models of ${p.llm.name}`}>
        <span class="label" aria-hidden="true">Models:</span>
        <Check label="Any allowed model (*)" checked={any} onChange={(on) => p.onChange({ ...p.value, models: toggled(models, '*', on) })} />
        {p.llm.allowedModels.map((m) => (
          <Check key={m} label={m} checked={any || models.includes(m)} disabled={any} onChange={(on) => p.onChange({ ...p.value, models: toggled(models, m, on) })} />
        ))}
      </div>
      <Field label={`Other models on ${p.llm.name}`} id={otherId} hint={p.llm.allowedModels.length ? 'The proxy allows only its listed models; others are refused at request time.' : 'The proxy allows every model of its provider: name the ones this key may use.'}>
        <input id={otherId} value={p.value.other} disabled={any} aria-describedby={`${otherId}-hint`} onInput={(e) => p.onChange({ ...p.value, other: e.currentTarget.value })} />
      </Field>
    </fieldset>
  );
}
