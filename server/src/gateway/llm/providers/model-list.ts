// Model listings shaped `{data: [{id, ...}], ...}` (OpenAI and Mistral `{object: 'list', data}`, Anthropic with
// `has_more`, `first_id`, `last_id`): the entries a caller may not use are dropped. Gemini has its own shape.
import { arr, isObject, str } from './json.ts';
import type { Json, JsonObject, ModelFilter, RouteSpec } from './types.ts';

/** The two reads every provider serves under `prefix` (`/v1`, `/v1beta`): the model listing and one model's lookup. */
export function modelRoutes(prefix: string): RouteSpec[] {
  return [
    { method: 'GET', path: `${prefix}/models`, use: 'list_models' },
    { method: 'GET', path: `${prefix}/models/{model}`, use: 'get_model' },
  ];
}

export function filterIdList(body: Json, keep: ModelFilter): Json | undefined {
  const data = arr(body, 'data');
  if (!isObject(body) || !data) return undefined;
  const kept = data.filter((m) => {
    const id = str(m, 'id');
    return id !== undefined && keep(id);
  });
  const out: JsonObject = { ...body, data: kept };
  // Cursors name the kept page's ends, so they never name a model the caller may not see. A page that kept nothing
  // while more follow keeps the upstream's cursors, else the client could not page on.
  if (kept.length) {
    if ('first_id' in body) out.first_id = str(kept[0], 'id') ?? null;
    if ('last_id' in body) out.last_id = str(kept.at(-1), 'id') ?? null;
  } else if (body.has_more !== true) {
    if ('first_id' in body) out.first_id = null;
    if ('last_id' in body) out.last_id = null;
  }
  return out;
}
