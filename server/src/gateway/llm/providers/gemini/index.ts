// Gemini (Generative Language API). The model and the operation are in the path:
// `/v1beta/models/<model>:generateContent` (or `:streamGenerateContent`, `:embedContent`, `:batchEmbedContents`,
// `:countTokens`). Client key: Bearer, `x-goog-api-key` or the `key` query parameter; upstream: `x-goog-api-key`.
// Usage is `usageMetadata` (promptTokenCount includes cachedContentTokenCount); output counts candidates and
// thoughts. Streams are SSE with `?alt=sse`, otherwise a JSON array delivered progressively.
import type { TokenUsage } from '../../../../pricing/cost.ts';
import { arr, count, isObject, obj, parseJson, str } from '../json.ts';
import type { Endpoint, Json, JsonObject, ProviderAdapter, StreamReader, TextRole, TextVisitor } from '../types.ts';

const PATH = /\/(models|tunedModels)\/([^/:]+):([A-Za-z]+)$/;

function endpoint(method: string, pathname: string): Endpoint | undefined {
  if (method !== 'POST') return undefined;
  const m = PATH.exec(pathname);
  if (!m) return undefined;
  const model = decodeURIComponent(m[2]!);
  switch (m[3]) {
    case 'generateContent': return { kind: 'generate', pathModel: model };
    case 'streamGenerateContent': return { kind: 'generate', pathModel: model, pathStream: true };
    case 'embedContent': case 'batchEmbedContents': return { kind: 'embed', pathModel: model };
    case 'countTokens': return { kind: 'count_tokens', pathModel: model, free: true };
    default: return undefined;
  }
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
  let changed = false;
  if (ep.kind === 'embed') {
    if (visitParts(body.content, 'user', visit)) changed = true;
    for (const r of arr(body, 'requests') ?? []) if (visitParts(obj(r, 'content'), 'user', visit)) changed = true;
    return changed;
  }
  if (visitParts(body.systemInstruction ?? body.system_instruction, 'system', visit)) changed = true;
  for (const c of arr(body, 'contents') ?? []) {
    const role = str(c, 'role');
    if (visitParts(c, role === 'model' ? 'assistant' : role === undefined || role === 'user' ? 'user' : 'other', visit)) changed = true;
  }
  return changed;
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

class GenerateStreamReader implements StreamReader {
  private parts: string[] = [];
  private u: TokenUsage | undefined;
  private m: string | undefined;
  private dataChars = 0;
  /** Without text collection: the last chunk that carried usageMetadata, parsed only when usage is asked for. */
  private lastUsageChunk: string | undefined;

  constructor(private readonly wantText = true) {}

  onEvent(_event: string, data: string): void {
    if (!this.wantText) {
      this.dataChars += data.length;
      if (data.includes('"usageMetadata"')) this.lastUsageChunk = data;
      return;
    }
    this.read(data);
  }

  private read(data: string): void {
    const r = parseJson(data);
    if (!isObject(r)) return;
    this.m = str(r, 'modelVersion') ?? this.m;
    this.u = usageOf(r.usageMetadata) ?? this.u;
    const t = candidatesText(r);
    if (t) this.parts.push(t);
  }

  usage() {
    if (this.lastUsageChunk !== undefined) {
      this.read(this.lastUsageChunk);
      this.lastUsageChunk = undefined;
      this.parts = [];
    }
    return this.u;
  }

  text() { return this.parts.join(''); }
  chars() { return this.wantText ? this.text().length : this.dataChars; }
  model() { return this.m; }
}

export const gemini: ProviderAdapter = {
  id: 'gemini',
  endpoint,
  nativeClientKey(headers, query) {
    const h = headers['x-goog-api-key'];
    if (typeof h === 'string' && h) return h;
    return query.get('key') || undefined;
  },
  authHeader: (key) => ['x-goog-api-key', key],
  readModel: (ep) => ep.pathModel,
  writeModel(ep, _body, pathname, model) {
    ep.pathModel = model;
    return pathname.replace(PATH, (_m, kind: string, _old: string, op: string) => `/${kind}/${encodeURIComponent(model)}:${op}`);
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
