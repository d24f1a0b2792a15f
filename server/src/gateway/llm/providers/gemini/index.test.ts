import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureJson, fixtureText, readStream } from '@tollgate/testkit/provider-fixtures.ts';
import type { JsonObject, TextRole } from '../types.ts';
import { routeOf } from '../../routes.ts';
import { gemini } from './index.ts';

const endpointOf = (method: string, path: string) => {
  const r = routeOf(gemini, method, path);
  return r.use === 'call' ? r.endpoint : undefined;
};

test('route table: the model and the operation come from the path, on v1beta and v1', () => {
  assert.deepEqual(endpointOf('POST', '/v1beta/models/gemini-2.0-flash:generateContent'), { kind: 'generate', pathModel: 'gemini-2.0-flash' });
  assert.deepEqual(endpointOf('POST', '/v1/models/gemini-2.5-pro:streamGenerateContent'), { kind: 'generate', pathModel: 'gemini-2.5-pro', pathStream: true });
  assert.equal(endpointOf('POST', '/v1beta/models/text-embedding-004:embedContent')?.kind, 'embed');
  assert.equal(endpointOf('POST', '/v1beta/models/text-embedding-004:batchEmbedContents')?.kind, 'embed');
  assert.equal(endpointOf('POST', '/v1beta/models/gemini-2.0-flash:countTokens')?.free, true);
  assert.deepEqual(routeOf(gemini, 'GET', '/v1beta/models'), { use: 'list_models' });
  assert.deepEqual(routeOf(gemini, 'GET', '/v1beta/models/gemini-2.5-flash'), { use: 'get_model', model: 'gemini-2.5-flash' });
  for (const [method, path] of [
    ['POST', '/v1beta/models/x:unknownOp'], ['POST', '/v1beta/models/a:b:generateContent'], ['POST', '/v1beta/tunedModels/t:generateContent'],
    ['GET', '/v1beta/files'], ['POST', '/v1beta/cachedContents'], ['GET', '/v1beta/operations'], ['POST', '/v1beta/models/gemini-2.0-flash:batchGenerateContent'],
  ]) {
    assert.equal(routeOf(gemini, method!, path!).use, 'refused', `${method} ${path}`);
  }
});

test('model listing: names are compared without models/, the page token is kept', () => {
  const page = { models: [{ name: 'models/gemini-2.5-flash' }, { name: 'models/gemini-2.5-pro' }], nextPageToken: 'tok' };
  assert.deepEqual(gemini.filterModelList(page, (m) => m === 'gemini-2.5-pro'), { models: [{ name: 'models/gemini-2.5-pro' }], nextPageToken: 'tok' });
  assert.deepEqual(gemini.filterModelList({}, () => true), { models: [] });
  assert.equal(gemini.filterModelList({ models: 'x' }, () => true), undefined, 'not the listing shape');
});

test('auth: the client key may come in x-goog-api-key or ?key=; the provider key goes in x-goog-api-key', () => {
  assert.equal(gemini.nativeClientKey({ 'x-goog-api-key': 'tgk_h' }, new URLSearchParams('key=tgk_q')), 'tgk_h');
  assert.equal(gemini.nativeClientKey({}, new URLSearchParams('alt=sse&key=tgk_q')), 'tgk_q');
  assert.equal(gemini.nativeClientKey({}, new URLSearchParams('alt=sse')), undefined);
  assert.deepEqual(gemini.authHeader('AIza'), ['x-goog-api-key', 'AIza']);
});

test('model rewrite changes the path, not the body', () => {
  const ep = endpointOf('POST', '/v1beta/models/gemini-2.5-pro:streamGenerateContent')!;
  const body: JsonObject = { contents: [] };
  assert.equal(gemini.readModel(ep, body), 'gemini-2.5-pro');
  assert.equal(gemini.writeModel(ep, body, '/v1beta/models/gemini-2.5-pro:streamGenerateContent', 'gemini-2.0-flash'), '/v1beta/models/gemini-2.0-flash:streamGenerateContent');
  assert.equal(gemini.readModel(ep, body), 'gemini-2.0-flash');
  assert.deepEqual(body, { contents: [] });
  assert.equal(gemini.isStream(ep, body), true);
});

test('generateContent JSON: prompt includes cached tokens, output includes thoughts', () => {
  const ep = { kind: 'generate' } as const;
  const body = fixtureJson('gemini', 'generate.json');
  assert.deepEqual(gemini.usageFromJson(ep, body), { inputTokens: 2060, cachedInputTokens: 2048, outputTokens: 52 });
  assert.equal(gemini.completionFromJson(ep, body), 'AI learns patterns from data to make predictions or decisions.');
  assert.equal(gemini.modelFromJson(body), 'gemini-2.5-flash');
});

test('streamGenerateContent SSE (CRLF framed): the last usageMetadata wins', () => {
  const wire = fixtureText('gemini', 'stream.sse');
  for (const size of [1, 11, wire.length]) {
    const r = readStream(gemini, { kind: 'generate' }, wire, { chunkSize: size });
    assert.deepEqual(r.usage(), { inputTokens: 9, cachedInputTokens: 0, outputTokens: 14 });
    assert.equal(r.text(), 'Once upon a time, a robot learned to paint.');
    assert.equal(r.model(), 'gemini-2.0-flash');
  }
});

test('streamGenerateContent without alt=sse is a JSON array', () => {
  const body = fixtureJson('gemini', 'stream-array.json');
  const ep = { kind: 'generate' } as const;
  assert.deepEqual(gemini.usageFromJson(ep, body), { inputTokens: 9, cachedInputTokens: 0, outputTokens: 5 });
  assert.equal(gemini.completionFromJson(ep, body), 'Once upon a time.');
});

test('errors; embeddings carry no usage (the gateway estimates)', () => {
  assert.deepEqual(gemini.errorFromJson(fixtureJson('gemini', 'error.json')), { type: 'INVALID_ARGUMENT', code: '400' });
  assert.equal(gemini.usageFromJson({ kind: 'embed' }, fixtureJson('gemini', 'embed.json')), undefined);
});

test('prompt texts: systemInstruction, contents by role (model = assistant), embed content', () => {
  const ep = { kind: 'generate' } as const;
  const body: JsonObject = {
    systemInstruction: { parts: [{ text: 'sys' }] },
    contents: [{ parts: [{ text: 'no role' }] }, { role: 'user', parts: [{ text: 'u' }, { inlineData: { mimeType: 'image/png', data: 'x' } }] }, { role: 'model', parts: [{ text: 'm' }] }],
    generationConfig: { maxOutputTokens: 64 },
  };
  const seen: Array<[string, TextRole]> = [];
  gemini.visitPrompt(ep, body, (t, r) => { seen.push([t, r]); return undefined; });
  assert.deepEqual(seen, [['sys', 'system'], ['no role', 'user'], ['u', 'user'], ['m', 'assistant']]);
  assert.equal(gemini.maxOutputTokens(ep, body), 64);
  const emb: JsonObject = { content: { parts: [{ text: 'e' }] } };
  assert.equal(gemini.visitPrompt({ kind: 'embed' }, emb, (t) => t + '!'), true);
  assert.deepEqual(emb, { content: { parts: [{ text: 'e!' }] } });
});

test('without text collection the last usageMetadata is parsed once, at the end', () => {
  const r = readStream(gemini, { kind: 'generate' }, fixtureText('gemini', 'stream.sse'), { chunkSize: 17, text: false });
  assert.deepEqual(r.usage(), { inputTokens: 9, cachedInputTokens: 0, outputTokens: 14 });
  assert.equal(r.text(), '');
  assert.deepEqual(r.usage(), { inputTokens: 9, cachedInputTokens: 0, outputTokens: 14 });
});
