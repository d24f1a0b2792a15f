// The pure decisions of the reconcilers: what a PATCH must carry, and what happens to an ApiKey's remote keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mcpPatch, toolChangesOutcome, TOOL_CHANGES_POLL_MS, type McpDesired } from './mcp-proxy.ts';
import { nextConditions, ok } from './outcome.ts';
import { llmPatch, type LlmDesired } from './llm-proxy.ts';
import { planKey } from './api-key.ts';

const mcpRemote = {
  id: 'm1', name: 'docs [k8s:u]', url: 'https://a.example/mcp', authType: 'bearer' as const, auth: null, tools: [], resources: [], createdAt: 1, proxyHost: 'm1.proxy.localhost', toolPinning: 'off' as const,
};
const mcpWant: McpDesired = { name: 'docs [k8s:u]', url: 'https://a.example/mcp', authType: 'bearer', auth: null, toolPinning: 'off', token: { value: 't', version: 'up@5' } };

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

test('toolPinning is patched when it differs; ToolChangesPending follows the pending list, and block takes Ready with it', () => {
  assert.deepEqual(mcpPatch(mcpRemote, { ...mcpWant, toolPinning: 'hide' }, 'up@5'), { toolPinning: 'hide' });
  const base = ok({ id: 'm1' });
  const off = toolChangesOutcome(base, 'off', []);
  assert.equal(off.conditions?.ToolChangesPending?.reason, 'PinningOff');
  assert.deepEqual(off.requeue, { kind: 'none' }, 'nothing to poll while pinning is off');
  const clean = toolChangesOutcome(base, 'hide', []);
  assert.equal(clean.conditions?.ToolChangesPending?.status, 'False');
  assert.deepEqual(clean.requeue, { kind: 'after', ms: TOOL_CHANGES_POLL_MS });
  const pending = [{ tool: 'lookup', change: 'changed' }, { tool: 'new', change: 'added' }];
  const hidden = toolChangesOutcome(base, 'hide', pending);
  assert.equal(hidden.conditions?.ToolChangesPending?.status, 'True');
  assert.match(hidden.conditions!.ToolChangesPending!.message, /^2 tool definition\(s\) differ .*lookup \(changed\), new \(added\)/);
  assert.equal(hidden.ready.status, 'True', 'hide: the rest of the proxy serves');
  const blocked = toolChangesOutcome(base, 'block', pending);
  assert.deepEqual([blocked.ready.status, blocked.ready.reason], ['False', 'ToolChangesPending']);
  const many = toolChangesOutcome(base, 'warn', Array.from({ length: 12 }, (_, i) => ({ tool: `t${i}`, change: 'added' })));
  assert.match(many.conditions!.ToolChangesPending!.message, /t9 \(added\) and 2 more/);
});

test('conditions of a kind\'s own are set beside Ready and Synced, and replace their previous value', () => {
  const now = new Date('2026-11-27T12:00:00Z');
  const first = nextConditions(undefined, toolChangesOutcome(ok({}), 'hide', [{ tool: 'x', change: 'added' }]), 3, now);
  assert.deepEqual(first.map((c) => `${c.type}=${c.status}`), ['Ready=True', 'Synced=True', 'ToolChangesPending=True']);
  const second = nextConditions(first, toolChangesOutcome(ok({}), 'hide', []), 3, new Date('2026-11-27T12:05:00Z'));
  assert.deepEqual(second.map((c) => `${c.type}=${c.status}`), ['Ready=True', 'Synced=True', 'ToolChangesPending=False']);
  assert.equal(second[2]!.lastTransitionTime, '2026-11-27T12:05:00Z');
});
