// Test kit for LLM gateway tests: a Tollgate whose four providers point at loopback fakes (TOLLGATE_PROVIDER_BASE_URL_*),
// LLM proxies and client keys created through the management API (POST /api/llm, POST /api/keys, PUT rules).
import type { BodyOf, ProviderId } from '@tollgate/contract';
import { must, startTestApp, type TestApp, type TestAppOptions, type TestUser } from './harness.ts';
import { startFakeProvider, type FakeProvider } from './fake-providers.ts';

export interface LlmEnv {
  t: TestApp;
  user: TestUser;
  fakes: Record<ProviderId, FakeProvider>;
  close(): Promise<void>;
}

export interface LlmProxyUnderTest {
  id: string;
  provider: ProviderId;
  fake: FakeProvider;
  /** Path-route base URL of the proxy (`<gateway>/<id>`). */
  base: string;
}

const PROVIDERS: ProviderId[] = ['openai', 'anthropic', 'gemini', 'mistral'];

export async function startLlmEnv(opts: TestAppOptions = {}): Promise<LlmEnv> {
  const fakes = Object.fromEntries(await Promise.all(PROVIDERS.map(async (p) => [p, await startFakeProvider(p)]))) as Record<ProviderId, FakeProvider>;
  const env: Record<string, string> = { ...opts.env };
  for (const p of PROVIDERS) env[`TOLLGATE_PROVIDER_BASE_URL_${p.toUpperCase()}`] = fakes[p].url;
  const t = await startTestApp({ ...opts, env });
  const user = await t.createUser();
  // Tests make a proxy each: lift this owner's LLM proxy quota (the quota has its own tests in api/routes/llm.test.ts).
  await t.setUserTags(user, ['private:permissions:llm:limit:1000']);
  return {
    t, user, fakes,
    async close() {
      await t.close();
      await Promise.all(PROVIDERS.map((p) => fakes[p].close()));
    },
  };
}

export async function createLlmProxy(e: LlmEnv, provider: ProviderId, extra: Record<string, unknown> = {}, user = e.user): Promise<LlmProxyUnderTest> {
  const { id } = must(await e.t.client(user.pat).call('POST /api/llm', {
    body: { name: `llm-${provider}`, provider, providerKey: e.fakes[provider].providerKey, ...extra } as BodyOf<'POST /api/llm'>,
  }));
  return { id, provider, fake: e.fakes[provider], base: `${e.t.gateway}/${id}` };
}

export async function createLlmKey(e: LlmEnv, p: LlmProxyUnderTest, models: string[] = ['*'], user = e.user): Promise<{ id: string; key: string }> {
  const { key } = must(await e.t.client(user.pat).call('POST /api/keys', {
    body: { name: `k${Math.random().toString(36).slice(2, 8)}`, llmPermissions: [{ id: p.id, models }] },
  }));
  return { id: key.id, key: key.key };
}

export async function putLlmRules(e: LlmEnv, p: LlmProxyUnderTest, rules: unknown[], user = e.user): Promise<void> {
  must(await e.t.client(user.pat).call('PUT /api/llm/:id/rules', { params: { id: p.id }, body: { rules } as BodyOf<'PUT /api/llm/:id/rules'> }));
}

export async function patchLlm(e: LlmEnv, p: LlmProxyUnderTest, body: BodyOf<'PATCH /api/llm/:id'>): Promise<void> {
  must(await e.t.client(e.user.pat).call('PATCH /api/llm/:id', { params: { id: p.id }, body }));
}

export async function rawLlm(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await r.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch { /* SSE or text */ }
  return { status: r.status, headers: r.headers, text, json };
}
