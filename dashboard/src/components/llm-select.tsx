// The LLM proxy picker of the usage and conversation pages: a labelled select whose value is the proxy id.
import type { ResponseOf } from '@tollgate/contract';
import { Field } from './form.tsx';

export type LlmProxy = ResponseOf<'GET /api/llm'>['proxies'][number];

export function LlmSelect(p: { id: string; proxies: LlmProxy[]; selected: string | undefined; note?(x: LlmProxy): string }) {
  return (
    <Field label="LLM proxy" id={p.id}>
      <select id={p.id} name="llm">
        {p.proxies.map((x) => (
          <option key={x.id} value={x.id} selected={x.id === p.selected}>{x.name} ({x.provider}){p.note?.(x) ?? ''}</option>
        ))}
      </select>
    </Field>
  );
}
