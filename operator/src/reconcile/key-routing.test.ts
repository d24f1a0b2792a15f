// Which connection an ApiKey's key is made through, and when a shared proxy refuses it: decided from the caches alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiKeySpecSchema, type ApiKeySpec } from '../kinds/specs.ts';
import type { KubeObject } from '../kube/objects.ts';
import { routeKey } from './key-routing.ts';
import type { ObjectIndex } from './types.ts';

const obj = <S,>(kind: string, at: { namespace: string; name: string; deletionTimestamp?: string }, spec: S): KubeObject<S> => ({
  apiVersion: 'tollgate.dev/v1beta1', kind, metadata: { ...at, uid: `${at.namespace}-${at.name}`, resourceVersion: '1' }, spec,
});
const index = (objs: KubeObject[]): ObjectIndex => ({
  get: (kind, ns, name) => objs.find((o) => o.kind === kind && o.metadata.namespace === ns && o.metadata.name === name),
  list: (kind, ns) => objs.filter((o) => o.kind === kind && (ns === undefined || o.metadata.namespace === ns)),
});
const key = (spec: unknown, ns = 'app-a') => obj<ApiKeySpec>('ApiKey', { namespace: ns, name: 'k' }, apiKeySpecSchema.parse(spec));

const shared = obj('LlmProxy', { namespace: 'platform', name: 'openai' }, { provider: 'openai', grants: [{ namespace: 'app-a' }], connectionRef: { name: 'platform-admin' } });
const sharedMcp = obj('McpProxy', { namespace: 'platform', name: 'docs' }, { url: 'https://mcp.example.com/mcp', grants: [{ namespace: 'app-a' }] });
const local = obj('LlmProxy', { namespace: 'app-a', name: 'own' }, { provider: 'openai' });
const objects = index([shared, sharedMcp, local]);

test('a key on proxies of its own namespace, or on none, goes through its own connection', () => {
  assert.deepEqual(routeKey(key({}), objects), { ok: true, via: { namespace: 'app-a', name: 'tollgate-connection' } });
  assert.deepEqual(routeKey(key({ connectionRef: { name: 'mine' }, llmPermissions: [{ proxyRef: { name: 'own' }, models: ['*'] }] }), objects),
    { ok: true, via: { namespace: 'app-a', name: 'mine' } });
});

test('a granted shared proxy is reached through the connection of the proxy, budgets included', () => {
  const k = key({ llmPermissions: [{ proxyRef: { name: 'openai', namespace: 'platform' }, models: ['*'] }], llmBudgets: [{ proxyRef: { name: 'openai', namespace: 'platform' }, period: 'daily', capUsd: 1 }] });
  assert.deepEqual(routeKey(k, objects), { ok: true, via: { namespace: 'platform', name: 'platform-admin' } });
});

test('a namespace the proxy does not grant is refused, naming the proxy and the missing grant; the key made there goes', () => {
  const r = routeKey(key({ llmPermissions: [{ proxyRef: { name: 'openai', namespace: 'platform' }, models: ['*'] }] }, 'app-b'), objects);
  assert.equal(r.ok, false);
  if (r.ok) return;
  assert.equal(r.revoked, true);
  assert.equal(r.outcome.ready.reason, 'ReferenceNotGranted');
  assert.equal(r.outcome.ready.message, 'LlmProxy platform/openai (llmPermissions) does not grant namespace app-b: its spec.grants needs {namespace: app-b}');
});

test('a shared proxy that is gone revokes; a missing proxy of the own namespace only waits', () => {
  const gone = routeKey(key({ mcpPermissions: [{ proxyRef: { name: 'nope', namespace: 'platform' }, tools: ['*'] }] }), objects);
  assert.deepEqual(!gone.ok && [gone.revoked, gone.outcome.ready.reason, gone.outcome.ready.message], [true, 'ProxyMissing', 'McpProxy platform/nope does not exist']);
  const deleting = index([obj('LlmProxy', { namespace: 'platform', name: 'openai', deletionTimestamp: '2026-01-01T00:00:00Z' }, shared.spec)]);
  const going = routeKey(key({ llmPermissions: [{ proxyRef: { name: 'openai', namespace: 'platform' }, models: ['*'] }] }), deleting);
  assert.deepEqual(!going.ok && [going.revoked, going.outcome.ready.reason], [true, 'ProxyMissing']);
  const waits = routeKey(key({ llmPermissions: [{ proxyRef: { name: 'later' }, models: ['*'] }] }), objects);
  assert.deepEqual(!waits.ok && [waits.revoked, waits.outcome.ready.reason], [false, 'ProxyMissing']);
});

test('proxies reached through two connections are refused with both named, without deleting the key', () => {
  const r = routeKey(key({
    mcpPermissions: [{ proxyRef: { name: 'docs', namespace: 'platform' }, tools: ['*'] }],
    llmPermissions: [{ proxyRef: { name: 'openai', namespace: 'platform' }, models: ['*'] }],
  }), objects);
  assert.equal(r.ok, false);
  if (r.ok) return;
  assert.equal(r.revoked, false);
  assert.equal(r.outcome.ready.reason, 'MixedConnections');
  assert.match(r.outcome.ready.message, /^McpProxy platform\/docs is reached through connection Secret platform\/tollgate-connection and LlmProxy platform\/openai through platform\/platform-admin: /);
  const withLocal = routeKey(key({ llmPermissions: [{ proxyRef: { name: 'own' }, models: ['*'] }, { proxyRef: { name: 'openai', namespace: 'platform' }, models: ['*'] }] }), objects);
  assert.equal(!withLocal.ok && withLocal.outcome.ready.reason, 'MixedConnections');
});
