// The world the fuzzer starts from, for each of its two users: MCP servers with a discovered catalog, rules and a
// synthetic resource, an LLM proxy with a budget, conversation logging and rules, a client key with grants and a
// per-key budget, and one real chat completion through the gateway (so usage rows and a conversation log exist).
// `replenish` puts back what the fuzzer deleted, so nested routes keep having real objects to work on.
import assert from 'node:assert/strict';
import type { Lookup } from '../../server/src/net/upstream-guard.ts';
import type { TestApp } from '@tollgate/testkit/harness.ts';
import type { Ids } from './world.ts';

/** DNS for the fuzzed app: a few names with fixed answers, everything else NXDOMAIN (no real lookups). */
export const FUZZ_ZONE: Record<string, string[]> = {
  'mcp.fuzz.test': ['127.0.0.1'],
  'public.fuzz.test': ['93.184.216.34'],
  'internal.fuzz.test': ['10.1.2.3'],
  'mixed.fuzz.test': ['93.184.216.34', '10.1.2.3'],
  'api.anthropic.com': ['93.184.216.34'],
  'generativelanguage.googleapis.com': ['93.184.216.34'],
  'api.mistral.ai': ['93.184.216.34'],
};

export const fuzzLookup: Lookup = async (host) => {
  const a = FUZZ_ZONE[host];
  if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return a;
};

export interface SeedTarget {
  t: TestApp;
  pat: string;
  upstreamUrl: string;
  providerKey: string;
}

async function ok(s: SeedTarget, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const r = await s.t.request(method, path, { token: s.pat, body });
  assert.ok(r.status >= 200 && r.status < 300, `seed ${method} ${path}: ${r.status} ${r.text}`);
  return r.body as Record<string, unknown>;
}

async function addMcp(s: SeedTarget, name: string): Promise<string> {
  const id = ((await ok(s, 'POST', '/api/mcp', { name, url: s.upstreamUrl })).server as { id: string }).id;
  await ok(s, 'POST', `/api/mcp/${id}/tools`);
  await ok(s, 'PUT', `/api/mcp/${id}/rules`, { rules: [
    { rule_type: 'rate_limit', tools: ['*'], name: 'per-key', match_key: 'api_key', threshold: 60, timespan: 60 },
    { rule_type: 'response_replace', tools: ['*'], pattern: '\\d{16}', replacement: '[card]' },
  ] });
  return id;
}

async function addResource(s: SeedTarget, mcpId: string): Promise<void> {
  await ok(s, 'POST', `/api/mcp/${mcpId}/resources`, { uri: `file:///r-${Math.random().toString(36).slice(2)}.txt`, name: 'r', content: 'hello' });
}

async function addLlm(s: SeedTarget): Promise<string> {
  const llm = await ok(s, 'POST', '/api/llm', {
    name: 'seed-llm', provider: 'openai', providerKey: s.providerKey, logConversations: true, budget: { period: 'monthly', capUsd: 10, hardBlock: false },
  });
  const id = llm.id as string;
  await ok(s, 'PUT', `/api/llm/${id}/rules`, { rules: [{ rule_type: 'model_route', tools: ['*'], pattern: '(?i)translate', target_model: 'gpt-4o-mini' }] });
  return id;
}

async function addKey(s: SeedTarget, mcpIds: string[], llmIds: string[]): Promise<{ id: string; key: string }> {
  return (await ok(s, 'POST', '/api/keys', {
    name: `seed${Math.random().toString(36).slice(2, 8)}`,
    mcpPermissions: mcpIds.map((id) => ({ id, tools: ['*'], resources: ['*'] })), llmPermissions: llmIds.map((id) => ({ id, models: ['*'] })),
  })).key as { id: string; key: string };
}

/** One chat completion through the gateway: a usage row, a spend window and a conversation log. */
async function chat(s: SeedTarget, llmId: string, key: string): Promise<void> {
  const r = await fetch(`${s.t.gateway}/${llmId}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }),
  });
  const text = await r.text();
  assert.equal(r.status, 200, text);
  await s.t.flush();
}

export async function seed(s: SeedTarget): Promise<{ clientKey: string }> {
  const mcpIds = [await addMcp(s, 'seed-a'), await addMcp(s, 'seed-b')];
  for (const id of mcpIds) await addResource(s, id);
  const llmId = await addLlm(s);
  const key = await addKey(s, mcpIds, [llmId]);
  await ok(s, 'PUT', `/api/llm/${llmId}/keys/${key.id}/budget`, { period: 'daily', capUsd: 1, hardBlock: true });
  await chat(s, llmId, key.key);
  return { clientKey: key.key };
}

/** A step of `replenish`: the fuzzer may have left the user in a state where it fails (a quota, a patched proxy). */
async function attempt<T>(step: () => Promise<T>): Promise<T | undefined> {
  try {
    return await step();
  } catch {
    return undefined;
  }
}

/**
 * Puts back (best effort) an MCP server, a resource, a key, and an LLM proxy with a conversation log, whichever the
 * fuzzer deleted. Returns whether it tried anything (the database may then have changed).
 */
function missingSomething(ids: Ids): boolean {
  return [ids.mcp, ids.res, ids.llm, ids.key, ids.log].some((list) => list.length === 0);
}

/** An MCP server with a resource: the first one left, or a new one. */
async function replenishMcp(s: SeedTarget, ids: Ids): Promise<string[]> {
  const mcp = ids.mcp[0] ?? await attempt(() => addMcp(s, 'again'));
  if (!mcp) return [];
  if (!ids.res.length) await attempt(() => addResource(s, mcp));
  return [mcp];
}

export async function replenish(s: SeedTarget, ids: Ids): Promise<boolean> {
  if (!missingSomething(ids)) return false;
  const mcps = await replenishMcp(s, ids);
  if (ids.llm.length && ids.log.length) {
    if (!ids.key.length) await attempt(() => addKey(s, mcps, []));
    return true;
  }
  // A fresh proxy: the fuzzer may have patched the old one so that no chat passes (auth, models, rules, budget).
  const llm = await attempt(() => addLlm(s));
  const key = llm ? await attempt(() => addKey(s, mcps, [llm])) : undefined;
  if (llm && key) await attempt(() => chat(s, llm, key.key));
  return true;
}
