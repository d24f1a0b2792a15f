// Gemini (Generative Language API). The model and the operation are in the path:
// `/v1beta/models/<model>:generateContent` (or `:streamGenerateContent`, `:embedContent`, `:batchEmbedContents`,
// `:countTokens`). Client key: Bearer, `x-goog-api-key` or the `key` query parameter; upstream: `x-goog-api-key`.
// Usage is `usageMetadata` (promptTokenCount includes cachedContentTokenCount); output counts candidates and
// thoughts. Streams are SSE with `?alt=sse`, otherwise a JSON array delivered progressively.
import type { SkimFilter } from '../../../upstream/sse-skim.ts';
import { modelRoutes } from '../model-list.ts';
import type { TokenUsage } from '../../../../pricing/cost.ts';
import { arr, count, isObject, obj, parseJson, str } from '../json.ts';
import type { Endpoint, Json, JsonObject, ModelFilter, ProviderAdapter, RouteSpec, TextRole, TextVisitor } from '../types.ts';
import { BaseStreamReader } from '../stream-reader.ts';

/** The model segment of a served operation path (the route table below only lets these through). */
const PATH = /\/models\/([^/:]+):([A-Za-z]+)$/;

/**
 * What a Gemini proxy serves, on the stable and the beta API. Tuned models, files, cached contents, batches and
 * long-running operations are not here: a key's grant names base models, and those are not metered.
 */
const routes: readonly RouteSpec[] = ['v1beta', 'v1'].flatMap((v): RouteSpec[] => [
  { method: 'POST', path: `/${v}/models/{model}:generateContent`, endpoint: 'generate', model: 'path' },
  { method: 'POST', path: `/${v}/models/{model}:streamGenerateContent`, endpoint: 'generate', model: 'path', stream: true },
  { method: 'POST', path: `/${v}/models/{model}:embedContent`, endpoint: 'embed', model: 'path' },
  { method: 'POST', path: `/${v}/models/{model}:batchEmbedContents`, endpoint: 'embed', model: 'path' },
  { method: 'POST', path: `/${v}/models/{model}:countTokens`, endpoint: 'count_tokens', model: 'path', free: true },
  ...modelRoutes(`/${v}`),
]);

/** `{models: [{name: 'models/x', ...}], nextPageToken}`: the page token is opaque and kept. */
function filterModelList(body: Json, keep: ModelFilter): Json | undefined {
  const models = arr(body, 'models');
  if (!isObject(body) || (!models && 'models' in body)) return undefined;
  // A page with nothing on it comes without `models`.
  if (!models) return typeof body.nextPageToken === 'string' ? { models: [], nextPageToken: body.nextPageToken } : { models: [] };
  return {
    ...body,
    models: models.filter((m) => {
      const name = str(m, 'name');
      return name !== undefined && keep(name.startsWith('models/') ? name.slice('models/'.length) : name);
    }),
  };
}

function usageOf(meta: Json | undefined): TokenUsage | undefined {
  if (!isObject(meta)) return undefined;
  const prompt = count(meta, 'promptTokenCount');
  if (prompt === undefined) return undefined;
  return {
    inputTokens: prompt + (count(meta, 'toolUsePromptTokenCount') ?? 0),
    cachedInputTokens: count(meta, 'cachedContentTokenCount') ?? 0,
    outputTokens: (count(meta, 'candidatesTokenCount') ?? 0) + (count(meta, 'thoughtsTokenCount') ?? 0),
  };
}

function visitParts(content: Json | undefined, role: TextRole, visit: TextVisitor): boolean {
  let changed = false;
  for (const p of arr(content, 'parts') ?? []) {
    if (!isObject(p) || typeof p.text !== 'string' || p.thought === true) continue;
    const r = visit(p.text, role);
    if (r !== undefined && r !== p.text) {
      p.text = r;
      changed = true;
    }
  }
  return changed;
}

function visitPrompt(ep: Endpoint, body: JsonObject, visit: TextVisitor): boolean {
  if (ep.kind === 'embed') return visitEmbedPrompt(body, visit);
  let changed = false;
  if (visitParts(body.systemInstruction ?? body.system_instruction, 'system', visit)) changed = true;
  for (const c of arr(body, 'contents') ?? []) if (visitParts(c, contentRole(str(c, 'role')), visit)) changed = true;
  return changed;
}

function visitEmbedPrompt(body: JsonObject, visit: TextVisitor): boolean {
  let changed = false;
  if (visitParts(body.content, 'user', visit)) changed = true;
  for (const r of arr(body, 'requests') ?? []) if (visitParts(obj(r, 'content'), 'user', visit)) changed = true;
  return changed;
}

/** Gemini's content roles as the rules see them: `model` is the assistant, a missing role the user. */
function contentRole(role: string | undefined): TextRole {
  return role === 'model' ? 'assistant' : role === undefined || role === 'user' ? 'user' : 'other';
}

function candidatesText(resp: Json): string {
  let out = '';
  const first = arr(resp, 'candidates')?.[0];
  for (const p of arr(obj(first, 'content'), 'parts') ?? []) {
    if (isObject(p) && p.thought !== true && typeof p.text === 'string') out += p.text;
  }
  return out;
}

/** A response, or the JSON array a non-SSE stream delivers. */
function responses(body: Json): Json[] {
  return Array.isArray(body) ? body : [body];
}

function lastUsage(body: Json): TokenUsage | undefined {
  let u: TokenUsage | undefined;
  for (const r of responses(body)) u = usageOf(obj(r, 'usageMetadata')) ?? u;
  return u;
}

const GENERATE_USAGE_EVENTS: SkimFilter = { dataMarker: '"usageMetadata"' };

class GenerateStreamReader extends BaseStreamReader {
  private u: TokenUsage | undefined;
  /** Without text collection: the last chunk that carried usageMetadata, parsed only when usage is asked for. */
  private lastUsageChunk: string | undefined;
  readonly usageEvents = GENERATE_USAGE_EVENTS;
  readonly usageInEveryEvent = true;

  onEvent(event: string, data: string): void {
    if (!this.wantText) {
      this.countChars(data.length);
      if (this.carriesUsage(event, data)) this.lastUsageChunk = data;
      return;
    }
    this.read(data);
  }

  private read(data: string): void {
    const r = parseJson(data);
    if (!isObject(r)) return;
    this.m = str(r, 'modelVersion') ?? this.m;
    this.u = usageOf(r.usageMetadata) ?? this.u;
    this.addText(candidatesText(r));
  }

  usage() {
    if (this.lastUsageChunk !== undefined) {
      this.read(this.lastUsageChunk);
      this.lastUsageChunk = undefined;
      this.parts = [];
    }
    return this.u;
  }
}

export const gemini: ProviderAdapter = {
  id: 'gemini',
  routes,
  filterModelList,
  nativeClientKey(headers, query) {
    const h = headers['x-goog-api-key'];
    if (typeof h === 'string' && h) return h;
    return query.get('key') || undefined;
  },
  authHeader: (key) => ['x-goog-api-key', key],
  readModel: (ep) => ep.pathModel,
  writeModel(ep, _body, pathname, model) {
    ep.pathModel = model;
    return pathname.replace(PATH, (_m, _old: string, op: string) => `/models/${encodeURIComponent(model)}:${op}`);
  },
  isStream: (ep) => ep.pathStream === true,
  askStreamUsage: () => false,
  maxOutputTokens: (_ep, body) => count(obj(body, 'generationConfig') ?? obj(body, 'generation_config'), 'maxOutputTokens'),
  visitPrompt,
  usageKey: 'usageMetadata',
  usageFromObject: (ep, u) => (ep.kind === 'count_tokens' ? undefined : usageOf(u)),
  usageFromJson: (ep, body) => (ep.kind === 'count_tokens' ? undefined : lastUsage(body)),
  completionFromJson: (_ep, body) => responses(body).map(candidatesText).join(''),
  modelFromJson: (body) => str(responses(body).at(-1), 'modelVersion'),
  streamReader: (_ep, opts) => new GenerateStreamReader(opts?.text ?? true),
  errorFromJson(body) {
    const e = obj(Array.isArray(body) ? body[0] : body, 'error');
    if (!e) return undefined;
    const code = e.code;
    return { type: str(e, 'status'), code: typeof code === 'number' ? String(code) : undefined };
  },
};
