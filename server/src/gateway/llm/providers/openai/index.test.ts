import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureJson, fixtureText, readStream } from '@tollgate/testkit/provider-fixtures.ts';
import type { JsonObject, TextRole } from '../types.ts';
import { routeOf } from '../../routes.ts';
import { openai } from './index.ts';

const chat = { kind: 'chat' } as const;

test('route table: chat completions, responses, completions, embeddings, the model listing and lookup; nothing else', () => {
  assert.deepEqual(routeOf(openai, 'POST', '/v1/chat/completions'), { use: 'call', endpoint: chat, modelFrom: 'body' });
  assert.deepEqual(routeOf(openai, 'POST', '/v1/responses'), { use: 'call', endpoint: { kind: 'responses' }, modelFrom: 'body' });
  assert.deepEqual(routeOf(openai, 'POST', '/v1/completions'), { use: 'call', endpoint: { kind: 'completions' }, modelFrom: 'body' });
  assert.deepEqual(routeOf(openai, 'POST', '/v1/embeddings'), { use: 'call', endpoint: { kind: 'embeddings' }, modelFrom: 'body' });
  assert.deepEqual(routeOf(openai, 'GET', '/v1/models'), { use: 'list_models' });
  // The SDK percent-encodes a fine-tuned model's colons; the model is the decoded segment.
  assert.deepEqual(routeOf(openai, 'GET', '/v1/models/ft%3Agpt-4o-mini%3Aacme%3A%3Aabc'), { use: 'get_model', model: 'ft:gpt-4o-mini:acme::abc' });
  for (const [method, path] of [
    ['POST', '/v1/images/generations'], ['GET', '/v1/chat/completions/chatcmpl-1'], ['GET', '/v1/responses/resp_1'], ['POST', '/v1/responses/resp_1/cancel'],
    ['GET', '/v1/files/file-1/content'], ['GET', '/v1/batches'], ['GET', '/v1/fine_tuning/jobs'], ['GET', '/v1/organization/costs'],
    ['DELETE', '/v1/models/ft:gpt-4o-mini:acme::abc'], ['HEAD', '/v1/models'], ['OPTIONS', '/v1/chat/completions'], ['GET', '/v1/chat/completions'],
    ['POST', '/v2/chat/completions'], ['POST', '/chat/completions'], ['POST', '/v1/x/chat/completions'],
  ]) {
    assert.equal(routeOf(openai, method!, path!).use, 'refused', `${method} ${path}`);
  }
});

test('model listing: only the models the caller may use, in the OpenAI list shape', () => {
  const list: JsonObject = { object: 'list', data: [{ id: 'gpt-4o', object: 'model' }, { id: 'gpt-4o-mini', object: 'model' }, { object: 'model' }] };
  assert.deepEqual(openai.filterModelList(list, (m) => m === 'gpt-4o-mini'), { object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model' }] });
  assert.equal(openai.filterModelList([{ id: 'gpt-4o' }], () => true), undefined, 'not the listing shape');
});

test('auth: the provider key goes in Authorization Bearer; no native client header', () => {
  assert.deepEqual(openai.authHeader('sk-provider'), ['authorization', 'Bearer sk-provider']);
  assert.equal(openai.nativeClientKey({ 'x-api-key': 'k' }, new URLSearchParams('key=k')), undefined);
});

test('chat completion JSON: usage with cached prompt tokens, completion text, model', () => {
  const body = fixtureJson('openai', 'chat-completion.json');
  assert.deepEqual(openai.usageFromJson(chat, body), { inputTokens: 1117, cachedInputTokens: 1024, outputTokens: 46 });
  assert.equal(openai.completionFromJson(chat, body), 'The capital of France is Paris.');
  assert.equal(openai.modelFromJson(body), 'gpt-4o-mini-2024-07-18');
});

test('chat completion SSE: the final usage chunk (cached tokens included) and the text deltas, at any chunking', () => {
  const wire = fixtureText('openai', 'chat-stream.sse');
  for (const size of [1, 5, 64, wire.length]) {
    const r = readStream(openai, chat, wire, { chunkSize: size });
    assert.deepEqual(r.usage(), { inputTokens: 1300, cachedInputTokens: 1152, outputTokens: 8 });
    assert.equal(r.text(), 'Hello! How can I help?');
    assert.equal(r.model(), 'gpt-4o-mini-2024-07-18');
  }
});

test('responses API: JSON and SSE usage (input/output naming) and output text', () => {
  const ep = { kind: 'responses' } as const;
  const body = fixtureJson('openai', 'responses.json');
  assert.deepEqual(openai.usageFromJson(ep, body), { inputTokens: 36, cachedInputTokens: 0, outputTokens: 87 });
  assert.match(openai.completionFromJson(ep, body), /^In a peaceful grove/);
  const r = readStream(openai, ep, fixtureText('openai', 'responses-stream.sse'));
  assert.deepEqual(r.usage(), { inputTokens: 37, cachedInputTokens: 0, outputTokens: 11 });
  assert.equal(r.text(), 'Hi there!');
  assert.equal(r.model(), 'gpt-4.1-2025-04-14');
});

test('embeddings: prompt tokens only, no completion text', () => {
  const ep = { kind: 'embeddings' } as const;
  const body = fixtureJson('openai', 'embeddings.json');
  assert.deepEqual(openai.usageFromJson(ep, body), { inputTokens: 8, cachedInputTokens: 0, outputTokens: 0 });
  assert.equal(openai.completionFromJson(ep, body), '');
});

test('errors: type and code, never the message (it may echo input)', () => {
  assert.deepEqual(openai.errorFromJson(fixtureJson('openai', 'error.json')), { type: 'invalid_request_error', code: 'invalid_api_key' });
  assert.equal(openai.errorFromJson(fixtureJson('openai', 'chat-completion.json')), undefined);
});

test('streaming chat requests are asked to include usage, once', () => {
  const body: JsonObject = { model: 'gpt-4o', stream: true, messages: [] };
  assert.equal(openai.isStream(chat, body), true);
  assert.equal(openai.askStreamUsage(chat, body), true);
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.equal(openai.askStreamUsage(chat, body), false);
  const withOpts: JsonObject = { stream: true, stream_options: { include_obfuscation: false } };
  openai.askStreamUsage(chat, withOpts);
  assert.deepEqual(withOpts.stream_options, { include_obfuscation: false, include_usage: true });
  assert.equal(openai.askStreamUsage({ kind: 'responses' }, { stream: true }), false, 'responses streams always report usage');
});

test('model read and rewrite; max output tokens', () => {
  const body: JsonObject = { model: 'gpt-4o', max_completion_tokens: 300, max_tokens: 10 };
  assert.equal(openai.readModel(chat, body), 'gpt-4o');
  assert.equal(openai.writeModel(chat, body, '/v1/chat/completions', 'gpt-4o-mini'), '/v1/chat/completions');
  assert.equal(body.model, 'gpt-4o-mini');
  assert.equal(openai.maxOutputTokens(chat, body), 300);
  assert.equal(openai.maxOutputTokens(chat, { max_tokens: 10 }), 10);
  assert.equal(openai.maxOutputTokens(chat, {}), undefined);
});

test('prompt texts: roles of chat messages (string and parts), rewrite in place', () => {
  const body: JsonObject = {
    messages: [
      { role: 'developer', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'my card 4111' }, { type: 'image_url', image_url: { url: 'data:...' } }] },
      { role: 'assistant', content: null },
      { role: 'user', content: 'again 4111' },
    ],
  };
  const seen: Array<[string, TextRole]> = [];
  assert.equal(openai.visitPrompt(chat, body, (t, r) => { seen.push([t, r]); return undefined; }), false);
  assert.deepEqual(seen, [['be brief', 'system'], ['my card 4111', 'user'], ['again 4111', 'user']]);
  assert.equal(openai.visitPrompt(chat, body, (t) => t.replace('4111', '[card]')), true);
  assert.equal(JSON.stringify(body), JSON.stringify({
    messages: [
      { role: 'developer', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'my card [card]' }, { type: 'image_url', image_url: { url: 'data:...' } }] },
      { role: 'assistant', content: null },
      { role: 'user', content: 'again [card]' },
    ],
  }));
});

test('prompt texts of the responses API, legacy completions and embeddings', () => {
  const seen: Array<[string, TextRole]> = [];
  const collect = (t: string, r: TextRole) => { seen.push([t, r]); return undefined; };
  openai.visitPrompt({ kind: 'responses' }, { instructions: 'sys', input: 'hello' }, collect);
  openai.visitPrompt({ kind: 'responses' }, { input: [{ role: 'user', content: [{ type: 'input_text', text: 'parts' }] }, { type: 'function_call_output', output: 'x' }] }, collect);
  openai.visitPrompt({ kind: 'completions' }, { prompt: ['a', 'b'] }, collect);
  openai.visitPrompt({ kind: 'embeddings' }, { input: 'emb' }, collect);
  assert.deepEqual(seen, [['sys', 'system'], ['hello', 'user'], ['parts', 'user'], ['a', 'user'], ['b', 'user'], ['emb', 'user']]);
});

test('without text collection a stream reader still finds the usage (and counts payload characters)', () => {
  const chatWire = fixtureText('openai', 'chat-stream.sse');
  const r = readStream(openai, chat, chatWire, { chunkSize: 13, text: false });
  assert.deepEqual(r.usage(), { inputTokens: 1300, cachedInputTokens: 1152, outputTokens: 8 });
  assert.equal(r.text(), '');
  assert.ok(r.chars() > 'Hello! How can I help?'.length);
  const resp = readStream(openai, { kind: 'responses' }, fixtureText('openai', 'responses-stream.sse'), { chunkSize: 13, text: false });
  assert.deepEqual(resp.usage(), { inputTokens: 37, cachedInputTokens: 0, outputTokens: 11 });
});
