// The pure decisions of the reconcilers: what a PATCH must carry, and what happens to an ApiKey's remote keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mcpPatch, type McpDesired } from './mcp-proxy.ts';
import { llmPatch, type LlmDesired } from './llm-proxy.ts';
import { planKey } from './api-key.ts';

const mcpRemote = {
  id: 'm1', name: 'docs [k8s:u]', url: 'https://a.example/mcp', authType: 'bearer' as const, auth: null, tools: [], resources: [], createdAt: 1, proxyHost: 'm1.proxy.localhost',
};
const mcpWant: McpDesired = { name: 'docs [k8s:u]', url: 'https://a.example/mcp', authType: 'bearer', auth: null, token: { value: 't', version: 'up@5' } };

test('an MCP proxy that matches needs no PATCH; the token goes again only when its Secret changed', () => {
  assert.deepEqual(mcpPatch(mcpRemote, mcpWant, 'up@5'), {});
  assert.deepEqual(mcpPatch(mcpRemote, mcpWant, 'up@4'), { authToken: 't' });
  assert.deepEqual(mcpPatch({ ...mcpRemote, name: 'renamed by hand', url: 'https://b.example/mcp' }, mcpWant, 'up@5'), { name: 'docs [k8s:u]', url: 'https://a.example/mcp' });
  assert.deepEqual(mcpPatch({ ...mcpRemote, authType: 'none' }, mcpWant, 'up@5'), { authType: 'bearer', authToken: 't' }, 'switching to bearer sends the token');
  assert.deepEqual(mcpPatch(mcpRemote, { ...mcpWant, auth: { mode: 'svc_api_key', clockSkewS: 30 } }, 'up@5'), {}, 'explicit default auth equals none');
});

const llmRemote = {
  id: 'l1', name: 'chat [k8s:u]', provider: 'openai' as const, upstreamUrl: 'https://api.openai.com', allowedModels: ['a', 'b'], defaultModel: null,
  logConversations: false, auth: null, budget: { period: 'monthly' as const, capUsd: 10, hardBlock: false }, createdAt: 1, proxyHost: 'l1.proxy.localhost',
};
const llmWant: LlmDesired = { name: 'chat [k8s:u]', provider: 'openai', allowedModels: ['a', 'b'], defaultModel: null, logConversations: false, auth: null, budget: { period: 'monthly', capUsd: 10, hardBlock: false } };

test('an LLM proxy PATCH carries only what differs; a removed key reference clears the key', () => {
  assert.deepEqual(llmPatch(llmRemote, llmWant, ''), {});
  assert.deepEqual(llmPatch({ ...llmRemote, allowedModels: [], budget: null }, llmWant, ''), { allowedModels: ['a', 'b'], budget: llmWant.budget });
  assert.deepEqual(llmPatch(llmRemote, { ...llmWant, key: { value: 'k', version: 'pk@2' } }, 'pk@1'), { providerKey: 'k' });
  assert.deepEqual(llmPatch(llmRemote, llmWant, 'pk@1'), { providerKey: null });
});

const key = (id: string) => ({ id, key: `${id}...`, tags: [], created_at: 0, ttl: null });

test('ApiKey: create, keep, reissue a key whose plaintext was lost, rotate, and delete leftovers of a crash', () => {
  assert.deepEqual(planKey([], undefined, undefined, undefined), { action: 'mint', why: 'create', leftovers: [] });
  const a = key('a');
  const b = key('b');
  assert.deepEqual(planKey([a], 'a', undefined, undefined), { action: 'keep', current: a, leftovers: [] });
  assert.deepEqual(planKey([a, b], 'a', undefined, undefined), { action: 'keep', current: a, leftovers: [b] }, 'b was created but its Secret write was lost');
  assert.deepEqual(planKey([a], undefined, undefined, undefined), { action: 'mint', why: 'reissue', leftovers: [a] });
  assert.deepEqual(planKey([a], 'a', '2', '1'), { action: 'mint', why: 'rotate', replaces: a, leftovers: [a] });
  assert.deepEqual(planKey([a], 'a', '2', '2'), { action: 'keep', current: a, leftovers: [] }, 'a rotation happens once per value');
});
