// LLM proxies: `#/llm` lists them with the create form, `#/llm/<id>` is one proxy.
import type { Route } from '../../router.ts';
import { LlmDetail } from './detail.tsx';
import { LlmList } from './list.tsx';

export function LlmPage({ route }: { route: Route }) {
  const id = route.parts[1];
  return id ? <LlmDetail key={id} id={id} /> : <LlmList />;
}
