// Loopback upstream fakes of the four providers for tests and the benchmark: real HTTP servers on 127.0.0.1 port 0
// that speak each provider's JSON and SSE wire formats (replaying the recorded fixtures) and record what they
// received, so tests can assert that the provider key was injected, the client key never arrived, the prompt was
// redacted and the model rerouted. Like the real OpenAI API, a chat stream carries usage only when the request set
// stream_options.include_usage.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderId } from '@tollgate/contract';
import { fixtureText } from './provider-fixtures.ts';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown> | undefined;
}

/** Replaces the default answer for one request (return true when handled). */
export type Override = (r: Received, res: ServerResponse) => boolean | Promise<boolean>;

export interface FakeProvider {
  provider: ProviderId;
  url: string;
  /** The key the fake accepts (in the provider's own header). */
  providerKey: string;
  received: Received[];
  last(): Received;
  override: Override | undefined;
  /** Delay between SSE events (ms). */
  eventDelayMs: number;
  close(): Promise<void>;
}

const EXPECTED_AUTH: Record<ProviderId, (h: IncomingHttpHeaders) => string | undefined> = {
  openai: (h) => h.authorization?.replace(/^Bearer /, ''),
  mistral: (h) => h.authorization?.replace(/^Bearer /, ''),
  anthropic: (h) => (typeof h['x-api-key'] === 'string' ? h['x-api-key'] : undefined),
  gemini: (h) => (typeof h['x-goog-api-key'] === 'string' ? h['x-goog-api-key'] : undefined),
};

/** A request body read whole as UTF-8 (test upstreams only: no limit). */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** SSE events of a fixture (split on blank lines, CRLF or LF), each written as its own chunk. */
export function sseEvents(wire: string): string[] {
  const sep = wire.includes('\r\n\r\n') ? '\r\n\r\n' : '\n\n';
  return wire.split(sep).filter((e) => e.trim()).map((e) => e + sep);
}

async function streamEvents(res: ServerResponse, events: string[], delayMs: number): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) {
    if (res.destroyed) return;
    res.write(e);
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
  }
  res.end();
}

function withModel(fixture: string, model: unknown): string {
  const body = JSON.parse(fixture) as Record<string, unknown>;
  if (typeof model === 'string') body.model = model;
  return JSON.stringify(body);
}

/** OpenAI embeddings: the official SDK asks for base64 floats by default and decodes them. */
function embeddings(r: Received): string {
  const body = JSON.parse(fixtureText('openai', 'embeddings.json')) as { data: Array<{ embedding: number[] | string }> };
  if (r.json?.encoding_format === 'base64') {
    for (const d of body.data) d.embedding = Buffer.from(new Float32Array(d.embedding as number[]).buffer).toString('base64');
  }
  return JSON.stringify(body);
}

/** The models each fake lists (GET /v1/models, /v1beta/models) and describes (GET …/models/<id>). */
export const FAKE_MODELS: Readonly<Record<ProviderId, readonly string[]>> = {
  openai: ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'o3', 'text-embedding-3-small'],
  anthropic: ['claude-sonnet-4-20250514', 'claude-3-5-haiku-latest', 'claude-opus-4-1-20250805'],
  gemini: ['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-2.0-flash', 'text-embedding-004'],
  mistral: ['mistral-small-latest', 'mistral-large-latest', 'codestral-latest', 'mistral-embed'],
};

function modelEntry(p: ProviderId, id: string): Record<string, unknown> {
  if (p === 'gemini') return { name: `models/${id}`, displayName: id };
  if (p === 'anthropic') return { type: 'model', id, display_name: id, created_at: '2025-05-14T00:00:00Z' };
  return { id, object: 'model', owned_by: p };
}

/** GET: the model listing in the provider's own shape, or one model (404 when unknown). */
function models(p: ProviderId, r: Received, res: ServerResponse): void {
  const m = /\/models\/([^/?]+)/.exec(r.path);
  if (m) {
    const id = decodeURIComponent(m[1]!);
    return FAKE_MODELS[p].includes(id) ? sendJson(res, 200, JSON.stringify(modelEntry(p, id))) : sendJson(res, 404, fixtureText(p, 'error.json'));
  }
  const all = FAKE_MODELS[p].map((id) => modelEntry(p, id));
  if (p === 'gemini') return sendJson(res, 200, JSON.stringify({ models: all }));
  if (p === 'anthropic') return sendJson(res, 200, JSON.stringify({ data: all, has_more: false, first_id: all[0]!.id, last_id: all.at(-1)!.id }));
  return sendJson(res, 200, JSON.stringify({ object: 'list', data: all }));
}

async function answer(fake: FakeProvider, r: Received, res: ServerResponse): Promise<void> {
  const p = fake.provider;
  if (p === 'openai' || p === 'mistral') return answerOpenAiLike(fake, r, res);
  if (p === 'anthropic') return answerAnthropic(fake, r, res);
  return answerGemini(fake, r, res);
}

/** OpenAI and Mistral share the chat-completions shape; only OpenAI serves /responses-style fixtures and stream_options. */
async function answerOpenAiLike(fake: FakeProvider, r: Received, res: ServerResponse): Promise<void> {
  const stream = r.json?.stream === true;
  const p = fake.provider;
  if (r.path.endsWith('/embeddings')) return sendJson(res, 200, embeddings(r));
  if (r.path.endsWith('/responses')) {
    if (stream) return streamEvents(res, sseEvents(fixtureText('openai', 'responses-stream.sse')), fake.eventDelayMs);
    return sendJson(res, 200, fixtureText('openai', 'responses.json'));
  }
  if (!stream) return sendJson(res, 200, withModel(fixtureText(p, p === 'openai' ? 'chat-completion.json' : 'chat.json'), r.json?.model));
  return streamChat(fake, r, res);
}

/** A streamed chat completion; OpenAI sends the usage chunk only when stream_options.include_usage asks for it. */
async function streamChat(fake: FakeProvider, r: Received, res: ServerResponse): Promise<void> {
  const p = fake.provider;
  let events = sseEvents(fixtureText(p, p === 'openai' ? 'chat-stream.sse' : 'chat-stream.sse'));
  const opts = r.json?.stream_options as { include_usage?: boolean } | undefined;
  if (p === 'openai' && opts?.include_usage !== true) events = events.filter((e) => !e.includes('"usage":{'));
  return streamEvents(res, events, fake.eventDelayMs);
}

async function answerAnthropic(fake: FakeProvider, r: Received, res: ServerResponse): Promise<void> {
  if (r.json?.stream === true) return streamEvents(res, sseEvents(fixtureText('anthropic', 'message-stream.sse')), fake.eventDelayMs);
  return sendJson(res, 200, withModel(fixtureText('anthropic', 'message.json'), r.json?.model));
}

async function answerGemini(fake: FakeProvider, r: Received, res: ServerResponse): Promise<void> {
  if (r.path.includes(':streamGenerateContent')) {
    if (r.path.includes('alt=sse')) return streamEvents(res, sseEvents(fixtureText('gemini', 'stream.sse')), fake.eventDelayMs);
    return sendJson(res, 200, fixtureText('gemini', 'stream-array.json'));
  }
  if (r.path.includes(':embedContent')) return sendJson(res, 200, fixtureText('gemini', 'embed.json'));
  return sendJson(res, 200, fixtureText('gemini', 'generate.json'));
}

export async function startFakeProvider(provider: ProviderId, providerKey = `pk-${provider}-secret`): Promise<FakeProvider> {
  const received: Received[] = [];
  const fake: FakeProvider = {
    provider, providerKey, received, url: '', override: undefined, eventDelayMs: 0,
    last: () => received.at(-1)!,
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      let json: Record<string, unknown> | undefined;
      try {
        json = body ? JSON.parse(body) as Record<string, unknown> : undefined;
      } catch { /* not JSON */ }
      const r: Received = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body, json };
      received.push(r);
      if (fake.override && await fake.override(r, res)) return;
      if (EXPECTED_AUTH[provider](req.headers) !== providerKey) return sendJson(res, 401, fixtureText(provider, 'error.json'));
      if (r.method === 'GET') return models(provider, r, res);
      await answer(fake, r, res);
    })().catch(() => res.destroy());
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return fake;
}
