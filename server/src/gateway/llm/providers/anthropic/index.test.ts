import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureJson, fixtureText, readStream } from '@tollgate/testkit/provider-fixtures.ts';
import type { JsonObject, TextRole } from '../types.ts';
import { routeOf } from '../../routes.ts';
import { anthropic } from './index.ts';

const messages = { kind: 'messages' } as const;

test('route table: messages (accounted), count_tokens (free), the model listing and lookup; batches and files are not served', () => {
  assert.deepEqual(routeOf(anthropic, 'POST', '/v1/messages'), { use: 'call', endpoint: messages, modelFrom: 'body' });
  assert.deepEqual(routeOf(anthropic, 'POST', '/v1/messages/count_tokens'), { use: 'call', endpoint: { kind: 'count_tokens', free: true }, modelFrom: 'body' });
  assert.deepEqual(routeOf(anthropic, 'GET', '/v1/models'), { use: 'list_models' });
  assert.deepEqual(routeOf(anthropic, 'GET', '/v1/models/claude-sonnet-4-20250514'), { use: 'get_model', model: 'claude-sonnet-4-20250514' });
  for (const [method, path] of [['POST', '/v1/messages/batches'], ['GET', '/v1/messages/batches/msgbatch_1/results'], ['GET', '/v1/files'], ['GET', '/v1/organizations/usage_report/messages']]) {
    assert.equal(routeOf(anthropic, method!, path!).use, 'refused', `${method} ${path}`);
  }
});

test('model listing: entries the caller may not use are dropped; the cursors name the kept page', () => {
  const page = { data: [{ type: 'model', id: 'claude-a' }, { type: 'model', id: 'claude-b' }, { type: 'model', id: 'claude-c' }], has_more: true, first_id: 'claude-a', last_id: 'claude-c' };
  assert.deepEqual(anthropic.filterModelList(page, (m) => m === 'claude-b'), { data: [{ type: 'model', id: 'claude-b' }], has_more: true, first_id: 'claude-b', last_id: 'claude-b' });
  // Nothing kept while more pages follow: the upstream cursors stay, so the client can page on.
  assert.deepEqual(anthropic.filterModelList(page, () => false), { ...page, data: [] });
  assert.deepEqual(anthropic.filterModelList({ ...page, has_more: false }, () => false), { data: [], has_more: false, first_id: null, last_id: null });
  assert.equal(anthropic.filterModelList({ models: [] }, () => true), undefined, 'not the listing shape');
});

test('auth: the client key may come in x-api-key; the provider key goes in x-api-key', () => {
  assert.equal(anthropic.nativeClientKey({ 'x-api-key': 'tgk_abc' }, new URLSearchParams()), 'tgk_abc');
  assert.equal(anthropic.nativeClientKey({}, new URLSearchParams()), undefined);
  assert.deepEqual(anthropic.authHeader('sk-ant'), ['x-api-key', 'sk-ant']);
});

test('message JSON: input = uncached + cache writes + cache reads; cache reads are the cached part', () => {
  const body = fixtureJson('anthropic', 'message.json');
  assert.deepEqual(anthropic.usageFromJson(messages, body), { inputTokens: 12 + 100 + 2048, cachedInputTokens: 2048, cacheWriteInputTokens: 100, outputTokens: 10 });
  assert.equal(anthropic.completionFromJson(messages, body), 'Hello! How can I help you today?');
  assert.equal(anthropic.modelFromJson(body), 'claude-sonnet-4-20250514');
});

test('message SSE: input from message_start, final output from message_delta', () => {
  const wire = fixtureText('anthropic', 'message-stream.sse');
  for (const size of [1, 9, wire.length]) {
    const r = readStream(anthropic, messages, wire, { chunkSize: size });
    assert.deepEqual(r.usage(), { inputTokens: 25 + 1024, cachedInputTokens: 1024, cacheWriteInputTokens: 0, outputTokens: 15 });
    assert.equal(r.text(), 'Hello! Nice to meet you.');
    assert.equal(r.model(), 'claude-sonnet-4-20250514');
  }
});

test('message_delta input counts (newer API versions) replace message_start ones', () => {
  const wire = 'event: message_start\ndata: {"type":"message_start","message":{"model":"m","usage":{"input_tokens":5,"output_tokens":1}}}\n\n'
    + 'event: message_delta\ndata: {"type":"message_delta","delta":{},"usage":{"input_tokens":7,"cache_read_input_tokens":3,"output_tokens":20}}\n\n';
  assert.deepEqual(readStream(anthropic, messages, wire).usage(), { inputTokens: 10, cachedInputTokens: 3, cacheWriteInputTokens: 0, outputTokens: 20 });
});

test('errors and count_tokens carry no billable usage', () => {
  assert.deepEqual(anthropic.errorFromJson(fixtureJson('anthropic', 'error.json')), { type: 'authentication_error' });
  assert.equal(anthropic.usageFromJson({ kind: 'count_tokens', free: true }, { input_tokens: 10 }), undefined);
});

test('prompt texts: system string or blocks, user/assistant blocks, tool_result content', () => {
  const body: JsonObject = {
    model: 'claude-sonnet-4-20250514', max_tokens: 512,
    system: [{ type: 'text', text: 'sys' }],
    messages: [
      { role: 'user', content: 'hi secret' },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }, { type: 'tool_use', id: 't', name: 'n', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'tool secret' }, { type: 'text', text: 'more secret' }] },
    ],
  };
  const seen: Array<[string, TextRole]> = [];
  anthropic.visitPrompt(messages, body, (t, r) => { seen.push([t, r]); return undefined; });
  assert.deepEqual(seen, [['sys', 'system'], ['hi secret', 'user'], ['ok', 'assistant'], ['more secret', 'user'], ['tool secret', 'tool']]);
  assert.equal(anthropic.visitPrompt(messages, body, (t) => t.replaceAll('secret', '***')), true);
  assert.doesNotMatch(JSON.stringify(body), /secret/);
  assert.equal(anthropic.maxOutputTokens(messages, body), 512);
});

test('without text collection only message_start and message_delta are parsed', () => {
  const r = readStream(anthropic, messages, fixtureText('anthropic', 'message-stream.sse'), { chunkSize: 5, text: false });
  assert.deepEqual(r.usage(), { inputTokens: 25 + 1024, cachedInputTokens: 1024, cacheWriteInputTokens: 0, outputTokens: 15 });
  assert.equal(r.text(), '');
  assert.ok(r.chars() > 0);
});

test('cache writes to the 1-hour cache are reported apart (usage.cache_creation), for their higher price', () => {
  const json = { type: 'message', model: 'claude-sonnet-4-20250514', content: [], usage: {
    input_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 500, output_tokens: 3,
    cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 300 },
  } };
  assert.deepEqual(anthropic.usageFromJson(messages, json), { inputTokens: 510, cachedInputTokens: 0, cacheWriteInputTokens: 500, cacheWrite1hInputTokens: 300, outputTokens: 3 });
});
