import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureJson, fixtureText, readStream } from '@tollgate/testkit/provider-fixtures.ts';
import type { JsonObject, TextRole } from '../types.ts';
import { routeOf } from '../../routes.ts';
import { mistral } from './index.ts';

const chat = { kind: 'chat' } as const;

test('route table: chat, fim, agents (model chosen upstream), embeddings, the model listing and lookup', () => {
  assert.deepEqual(routeOf(mistral, 'POST', '/v1/chat/completions'), { use: 'call', endpoint: chat, modelFrom: 'body' });
  assert.deepEqual(routeOf(mistral, 'POST', '/v1/fim/completions'), { use: 'call', endpoint: { kind: 'fim' }, modelFrom: 'body' });
  assert.deepEqual(routeOf(mistral, 'POST', '/v1/agents/completions'), { use: 'call', endpoint: chat, modelFrom: 'upstream' });
  assert.deepEqual(routeOf(mistral, 'POST', '/v1/embeddings'), { use: 'call', endpoint: { kind: 'embeddings' }, modelFrom: 'body' });
  assert.deepEqual(routeOf(mistral, 'GET', '/v1/models'), { use: 'list_models' });
  assert.deepEqual(routeOf(mistral, 'GET', '/v1/models/mistral-small-latest'), { use: 'get_model', model: 'mistral-small-latest' });
  for (const [method, path] of [['GET', '/v1/files'], ['POST', '/v1/batch/jobs'], ['GET', '/v1/fine_tuning/jobs'], ['DELETE', '/v1/models/ft:x'], ['POST', '/v1/agents']]) {
    assert.equal(routeOf(mistral, method!, path!).use, 'refused', `${method} ${path}`);
  }
});

test('auth header is Authorization Bearer', () => {
  assert.deepEqual(mistral.authHeader('mk'), ['authorization', 'Bearer mk']);
});

test('chat JSON usage and text', () => {
  const body = fixtureJson('mistral', 'chat.json');
  assert.deepEqual(mistral.usageFromJson(chat, body), { inputTokens: 16, cachedInputTokens: 0, outputTokens: 34 });
  assert.equal(mistral.completionFromJson(chat, body), 'Bonjour ! Comment puis-je vous aider ?');
});

test('chat SSE: usage rides on the last content chunk', () => {
  const r = readStream(mistral, chat, fixtureText('mistral', 'chat-stream.sse'), { chunkSize: 3 });
  assert.deepEqual(r.usage(), { inputTokens: 8, cachedInputTokens: 0, outputTokens: 4 });
  assert.equal(r.text(), 'Hello world');
});

test('streaming requests are not changed (the API rejects unknown fields)', () => {
  const body: JsonObject = { stream: true };
  assert.equal(mistral.askStreamUsage(chat, body), false);
  assert.deepEqual(body, { stream: true });
});

test('errors and FIM prompt texts', () => {
  assert.deepEqual(mistral.errorFromJson(fixtureJson('mistral', 'error.json')), { type: 'invalid_model', code: '1500' });
  const seen: Array<[string, TextRole]> = [];
  const body: JsonObject = { prompt: 'def f(', suffix: 'return 1' };
  assert.equal(mistral.visitPrompt({ kind: 'fim' }, body, (t, r) => { seen.push([t, r]); return t.toUpperCase(); }), true);
  assert.deepEqual(seen, [['def f(', 'user'], ['return 1', 'user']]);
  assert.deepEqual(body, { prompt: 'DEF F(', suffix: 'RETURN 1' });
});

test('without text collection the usage chunk is still read', () => {
  const r = readStream(mistral, chat, fixtureText('mistral', 'chat-stream.sse'), { chunkSize: 3, text: false });
  assert.deepEqual(r.usage(), { inputTokens: 8, cachedInputTokens: 0, outputTokens: 4 });
  assert.equal(r.text(), '');
});
