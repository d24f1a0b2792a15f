// Issue 20: an LLM proxy forwards only its provider's route table (routes.ts). Endpoints outside it would reach the
// whole provider account with the provider key (files, batches, fine-tuning, stored completions and responses,
// costs); they are refused before any upstream call. The model listing shows only the models the caller may use.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { Client } from 'undici';
import { createLlmKey, createLlmProxy, rawLlm, startLlmEnv, type LlmEnv, type LlmProxyUnderTest } from '@tollgate/testkit/llm-kit.ts';

let e: LlmEnv;

before(async () => { e = await startLlmEnv(); });
after(async () => { await e.close(); });

interface LoggedEvent { event_type: string; llm_uuid?: string; model?: string; details: Record<string, unknown> }

async function denies(p: LlmProxyUnderTest): Promise<LoggedEvent[]> {
  await e.t.flush();
  const r = await e.t.request('GET', '/api/logs?event_type=deny&limit=500', { token: e.user.pat });
  assert.equal(r.status, 200, r.text);
  return (r.body.logs as LoggedEvent[]).filter((l) => l.llm_uuid === p.id);
}

/** Sends the path exactly as written (fetch would resolve dot segments and re-encode it). */
async function raw(p: LlmProxyUnderTest, method: string, path: string, o: { key: string; body?: unknown }): Promise<{ status: number; text: string }> {
  const { key, body } = o;
  const client = new Client(new URL(p.base).origin);
  try {
    const r = await client.request({
      method: method as 'GET', path: `/${p.id}${path}`,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.statusCode, text: await r.body.text() };
  } finally {
    await client.close();
  }
}

const PASSTHROUGH: Array<[string, string]> = [
  ['GET', '/v1/files/file-abc/content'],
  ['GET', '/v1/files'],
  ['GET', '/v1/batches'],
  ['POST', '/v1/batches'],
  ['GET', '/v1/fine_tuning/jobs'],
  ['POST', '/v1/fine_tuning/jobs'],
  ['GET', '/v1/chat/completions/chatcmpl-123'],
  ['GET', '/v1/chat/completions'],
  ['GET', '/v1/responses/resp_123'],
  ['DELETE', '/v1/responses/resp_123'],
  ['GET', '/v1/organization/costs'],
  ['DELETE', '/v1/models/ft:gpt-4o-mini:acme::abc'],
  ['PUT', '/v1/chat/completions'],
  ['OPTIONS', '/v1/chat/completions'],
];

test('a key granted one model reaches no passthrough endpoint: 403 naming it, nothing sent upstream, one deny event each', async () => {
  const p = await createLlmProxy(e, 'openai');
  const k = await createLlmKey(e, p, ['gpt-4o-mini']);
  const n = p.fake.received.length;
  for (const [method, path] of PASSTHROUGH) {
    const r = await raw(p, method, path, { key: k.key, body: method === 'POST' ? { model: 'gpt-4o-mini' } : undefined });
    assert.equal(r.status, 403, `${method} ${path}: ${r.text}`);
    assert.deepEqual(JSON.parse(r.text), { error: `Endpoint not allowed: ${method} ${path} is not served by this LLM proxy` });
  }
  const head = await raw(p, 'HEAD', '/v1/models', { key: k.key });
  assert.equal(head.status, 403, 'HEAD is in no table either');
  assert.equal(p.fake.received.length, n, 'the provider received nothing');
  const events = await denies(p);
  for (const [method, path] of [...PASSTHROUGH, ['HEAD', '/v1/models']]) {
    const mine = events.filter((ev) => ev.details.method === method && ev.details.path === path);
    assert.equal(mine.length, 1, `${method} ${path}`);
    assert.equal(mine[0]!.details.reason, 'endpoint_not_allowed');
    assert.equal(mine[0]!.details.phase, 'authorize');
  }
});

test('paths with dot segments, encoded dots or slashes and empty segments are refused with 400, never resolved or forwarded', async () => {
  const p = await createLlmProxy(e, 'mistral');
  const k = await createLlmKey(e, p);
  const n = p.fake.received.length;
  const chat = { model: 'mistral-small-latest', messages: [{ role: 'user', content: 'x' }] };
  for (const path of ['/v1/files/../chat/completions', '/v1/chat/completions/../../files', '/v1/%2e%2e/v1/chat/completions', '/v1/chat%2fcompletions', '/v1//chat/completions', '/v1/./chat/completions']) {
    const r = await raw(p, 'POST', path, { key: k.key, body: chat });
    assert.equal(r.status, 400, `${path}: ${r.text}`);
    assert.deepEqual(JSON.parse(r.text), { error: 'Invalid path: dot segments, empty segments and encoded dots, slashes, backslashes or percent signs are refused' });
  }
  assert.equal(p.fake.received.length, n);
  assert.ok((await denies(p)).every((ev) => ev.details.reason === 'invalid_path'));
  assert.equal((await raw(p, 'POST', '/v1/chat/completions', { key: k.key, body: chat })).status, 200, 'the clean path is served');
});

test('models.list() through the OpenAI SDK shows only the models both allowedModels and the key permit', async () => {
  const p = await createLlmProxy(e, 'openai', { allowedModels: ['gpt-4o', 'gpt-4o-mini', 'o3'] });
  const narrow = await createLlmKey(e, p, ['gpt-4o-mini', 'o3', 'gpt-4.1']);
  const wide = await createLlmKey(e, p, ['*']);
  const sdk = (key: string) => new OpenAI({ apiKey: key, baseURL: `${p.base}/v1`, maxRetries: 0 });
  const ids = async (key: string) => (await sdk(key).models.list()).data.map((m) => m.id).sort();
  assert.deepEqual(await ids(narrow.key), ['gpt-4o-mini', 'o3']);
  assert.equal(p.fake.last().path, '/v1/models');
  assert.equal(p.fake.last().headers.authorization, `Bearer ${p.fake.providerKey}`);
  assert.deepEqual(await ids(wide.key), ['gpt-4o', 'gpt-4o-mini', 'o3']);
  const open = await createLlmProxy(e, 'openai');
  const all = await createLlmKey(e, open, ['*']);
  assert.deepEqual((await new OpenAI({ apiKey: all.key, baseURL: `${open.base}/v1`, maxRetries: 0 }).models.list()).data.map((m) => m.id).sort(),
    ['gpt-4.1', 'gpt-4o', 'gpt-4o-mini', 'o3', 'text-embedding-3-small'], 'no allowedModels and a * key: the whole list');
});

test('models.retrieve() of a model the key may not use is 403 like a completion for it; a granted one is served', async () => {
  const p = await createLlmProxy(e, 'openai', { allowedModels: ['gpt-4o', 'gpt-4o-mini'] });
  const k = await createLlmKey(e, p, ['gpt-4o-mini']);
  const sdk = new OpenAI({ apiKey: k.key, baseURL: `${p.base}/v1`, maxRetries: 0 });
  const n = p.fake.received.length;
  await assert.rejects(sdk.models.retrieve('gpt-4o'), (err: { status?: number; error?: unknown }) => {
    assert.equal(err.status, 403);
    assert.equal(err.error, 'This API key may not use this model', 'the SDK reads `error` of the JSON body');
    return true;
  });
  await assert.rejects(sdk.models.retrieve('o3'), (err: { status?: number; error?: unknown }) => err.status === 403 && err.error === 'Model not allowed on this LLM proxy');
  assert.equal(p.fake.received.length, n, 'refused lookups never reach the provider');
  const m = await sdk.models.retrieve('gpt-4o-mini');
  assert.equal(m.id, 'gpt-4o-mini');
  assert.equal(p.fake.last().path, '/v1/models/gpt-4o-mini');
  const events = await denies(p);
  assert.ok(events.some((ev) => ev.model === 'gpt-4o' && ev.details.reason === 'model_not_granted'));
});

test('the Anthropic, Gemini and Mistral listings are filtered in their own shapes', async () => {
  const a = await createLlmProxy(e, 'anthropic', { allowedModels: ['claude-sonnet-4-20250514', 'claude-3-5-haiku-latest'] });
  const ak = await createLlmKey(e, a, ['claude-3-5-haiku-latest', 'claude-opus-4-1-20250805']);
  const page = await new Anthropic({ apiKey: ak.key, baseURL: a.base, maxRetries: 0 }).models.list();
  assert.deepEqual(page.data.map((m) => m.id), ['claude-3-5-haiku-latest']);
  const aRaw = await fetch(`${a.base}/v1/models`, { headers: { 'x-api-key': ak.key, 'anthropic-version': '2023-06-01' } });
  assert.deepEqual(await aRaw.json(), {
    data: [{ type: 'model', id: 'claude-3-5-haiku-latest', display_name: 'claude-3-5-haiku-latest', created_at: '2025-05-14T00:00:00Z' }],
    has_more: false, first_id: 'claude-3-5-haiku-latest', last_id: 'claude-3-5-haiku-latest',
  });

  const g = await createLlmProxy(e, 'gemini');
  const gk = await createLlmKey(e, g, ['gemini-2.5-flash', 'models/text-embedding-004']);
  const gl = await fetch(`${g.base}/v1beta/models?key=${gk.key}`);
  assert.equal(gl.status, 200);
  assert.deepEqual((await gl.json() as { models: Array<{ name: string }> }).models.map((m) => m.name), ['models/gemini-2.5-flash', 'models/text-embedding-004']);
  assert.equal(g.fake.last().path, '/v1beta/models', 'the client key in ?key= is not forwarded');
  assert.equal((await fetch(`${g.base}/v1beta/models/gemini-2.5-pro`, { headers: { 'x-goog-api-key': gk.key } })).status, 403);
  assert.equal((await fetch(`${g.base}/v1beta/models/gemini-2.5-flash`, { headers: { 'x-goog-api-key': gk.key } })).status, 200);

  const m = await createLlmProxy(e, 'mistral', { allowedModels: ['mistral-small-latest', 'codestral-latest'] });
  const mk = await createLlmKey(e, m, ['*']);
  const ml = await fetch(`${m.base}/v1/models`, { headers: { authorization: `Bearer ${mk.key}` } });
  assert.deepEqual((await ml.json() as { data: Array<{ id: string }> }).data.map((x) => x.id), ['mistral-small-latest', 'codestral-latest']);
});

test('a listing the gateway cannot read as the provider shape is never relayed: 502 with an error event', async () => {
  const p = await createLlmProxy(e, 'openai', { allowedModels: ['gpt-4o-mini'] });
  const k = await createLlmKey(e, p);
  p.fake.override = (r, res) => {
    if (r.method !== 'GET') return false;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ models: ['gpt-4o', 'secret-finetune'] }));
    return true;
  };
  try {
    const r = await fetch(`${p.base}/v1/models`, { headers: { authorization: `Bearer ${k.key}` } });
    const text = await r.text();
    assert.deepEqual([r.status, JSON.parse(text)], [502, { error: 'Upstream returned an invalid model list' }]);
    assert.doesNotMatch(text, /secret-finetune/);
  } finally {
    p.fake.override = undefined;
  }
  await e.t.flush();
  const errors = await e.t.request('GET', '/api/logs?event_type=error&limit=200', { token: e.user.pat });
  assert.ok((errors.body.logs as LoggedEvent[]).some((l) => l.llm_uuid === p.id && l.details.reason === 'upstream_invalid_response'));
});

test('a call whose model the gateway cannot see is served only to callers that may use every model', async () => {
  const p = await createLlmProxy(e, 'mistral');
  const narrow = await createLlmKey(e, p, ['mistral-small-latest']);
  const wide = await createLlmKey(e, p, ['*']);
  const n = p.fake.received.length;
  // A Mistral agent's model is stored with the agent; a body without a model names none.
  const agent = await rawLlm(`${p.base}/v1/agents/completions`, { agent_id: 'ag_1', model: 'mistral-small-latest', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${narrow.key}` });
  assert.deepEqual([agent.status, agent.json], [403, { error: 'This API key may not use this model' }]);
  const noModel = await rawLlm(`${p.base}/v1/chat/completions`, { messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${narrow.key}` });
  assert.deepEqual([noModel.status, noModel.json], [403, { error: 'This API key may not use this model' }]);
  assert.equal(p.fake.received.length, n);
  const served = await rawLlm(`${p.base}/v1/agents/completions`, { agent_id: 'ag_1', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${wide.key}` });
  assert.equal(served.status, 200, served.text);
  assert.equal(p.fake.last().path, '/v1/agents/completions');
});
