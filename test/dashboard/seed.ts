// The "little data" the activity and accessibility tests look at, made the way a user makes it: proxies, keys and
// rules through the management API, traffic through the gateway. One MCP proxy allows, one blocks the loopback
// address with an ip_acl rule (ip_blocked, a deny), and an LLM proxy with conversation logging answers one chat.
import assert from 'node:assert/strict';
import { must, type TestUser } from '@tollgate/testkit/harness.ts';
import { createKey, createProxy, INIT, putRules, rawPost, type ProxyUnderTest } from '@tollgate/testkit/mcp-kit.ts';
import { rawLlm } from '@tollgate/testkit/llm-kit.ts';
import { startFakeProvider, type FakeProvider } from '@tollgate/testkit/fake-providers.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import type { DashboardEnv } from './kit.ts';

export const PROMPT = 'hello from the dashboard test';

/** The fake OpenAI the LLM proxy talks to: started before Tollgate, whose provider base URL points at it. */
export async function startOpenAi(): Promise<{ fake: FakeProvider; env: Record<string, string> }> {
  const fake = await startFakeProvider('openai');
  return { fake, env: { TOLLGATE_PROVIDER_BASE_URL_OPENAI: fake.url } };
}

export interface Seeded {
  user: TestUser;
  open: ProxyUnderTest;
  blocked: ProxyUnderTest;
  llmId: string;
  keyName: string;
  upstream: McpUpstream;
}

async function seedLlm(d: DashboardEnv, user: TestUser, fake: FakeProvider): Promise<{ llmId: string; keyName: string }> {
  const api = d.t.client(user.pat);
  const llm = must(await api.call('POST /api/llm', { body: { name: 'chat-llm', provider: 'openai', providerKey: fake.providerKey, logConversations: true } }));
  const keyName = 'chat-key';
  const { key } = must(await api.call('POST /api/keys', { body: { name: keyName, llmPermissions: [{ id: llm.id, models: ['*'] }] } }));
  const r = await rawLlm(`${d.t.gateway}/${llm.id}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: PROMPT }] }, { authorization: `Bearer ${key.key}` });
  assert.equal(r.status, 200, r.text);
  return { llmId: llm.id, keyName };
}

/** `allowed` requests through an open proxy, `denied` from a blocked address, one LLM chat; all flushed. */
export async function seedActivity(d: DashboardEnv, fake: FakeProvider, o: { allowed: number; denied: number }): Promise<Seeded> {
  const user = await d.t.createUser();
  const upstream = await startMcpUpstream();
  const open = await createProxy(d.t, user, upstream.url, { name: 'open-mcp' });
  const blocked = await createProxy(d.t, user, upstream.url, { name: 'blocked-mcp' });
  await putRules(d.t, blocked, [{ rule_type: 'ip_acl', tools: ['*'], action: 'deny', cidrs: ['127.0.0.1', '::1'] }]);
  const openKey = await createKey(d.t, open);
  const blockedKey = await createKey(d.t, blocked);
  for (let i = 0; i < o.allowed; i++) assert.equal((await rawPost(open.pathUrl, INIT, { authorization: `Bearer ${openKey}` })).status, 200);
  for (let i = 0; i < o.denied; i++) assert.equal((await rawPost(blocked.pathUrl, INIT, { authorization: `Bearer ${blockedKey}` })).status, 403);
  const llm = await seedLlm(d, user, fake);
  await d.t.flush();
  return { user, open, blocked, upstream, ...llm };
}
