// The OpenAPI document is good enough for client generators: openapi-typescript turns docs/openapi.json into types,
// and a small openapi-fetch program type-checks against them (response fields, enums, path parameters). A response
// documented as a bare object would make `data.proxyHost` a type error, and so fail this test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
// Inside the repository (ignored by git) so that the program resolves openapi-fetch from node_modules.
const dir = join(root, '.cache', 'typed-client');

const PROGRAM = `import createClient from 'openapi-fetch';
import type { paths } from './api.ts';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:8080', headers: { authorization: 'Bearer svc_pat_x' } });

export async function demo(): Promise<string[]> {
  const out: string[] = [];
  const mcp = await client.GET('/api/mcp/{id}', { params: { path: { id: '1' } } });
  if (mcp.data) {
    const host: string = mcp.data.proxyHost;
    const tools: string[] = mcp.data.tools.map((t) => t.name);
    const auth: 'none' | 'bearer' = mcp.data.authType;
    out.push(host, ...tools, auth);
  }
  if (mcp.error) out.push(mcp.error.error);
  const llm = await client.POST('/api/llm', { body: { name: 'n', provider: 'openai', budget: { period: 'daily', capUsd: 5 } } });
  if (llm.data) {
    const provider: 'openai' | 'anthropic' | 'gemini' | 'mistral' = llm.data.provider;
    const cap: number | undefined = llm.data.budget?.capUsd;
    out.push(provider, String(cap));
  }
  const key = await client.POST('/api/keys', { body: { name: 'ci', llmPermissions: [{ id: '1', models: ['*'] }] } });
  if (key.data) out.push(key.data.key.key, key.data.message);
  const rules = await client.PUT('/api/mcp/{id}/rules', {
    params: { path: { id: '1' } },
    body: { rules: [{ rule_type: 'rate_limit', tools: ['*'], name: 'rl', match_key: 'ip', threshold: 10, timespan: 60 }] },
  });
  for (const r of rules.data?.rules ?? []) if (r.rule_type === 'rate_limit') out.push(r.name);
  const health = await client.GET('/api/health');
  if (health.data) {
    const overall: 'operational' | 'degraded' = health.data.overall;
    out.push(overall, ...health.data.services.map((x) => \`\${x.name}:\${x.status}:\${x.latencyMs}\`));
  }
  const daily = await client.GET('/api/llm/{id}/usage/daily', { params: { path: { id: '1' } } });
  if (daily.data) {
    const spent: number | undefined = daily.data.window?.spentCents;
    out.push(String(spent), ...daily.data.series.map((d) => \`\${d.date}:\${d.costCents}\`));
  }
  const logs = await client.GET('/api/logs');
  for (const l of logs.data?.logs ?? []) out.push(l.event_type, l.tool ?? '');
  const jwks = await client.POST('/api/mcp/jwks/test', { body: { jwksJson: '{}' } });
  if (jwks.data) out.push(jwks.data.ok ? jwks.data.keys.map((k) => k.kty).join() : jwks.data.error);
  // @ts-expect-error provider is an enum of four ids
  await client.POST('/api/llm', { body: { name: 'n', provider: 'nope' } });
  // @ts-expect-error listings carry no content
  out.push((await client.GET('/api/mcp')).data?.servers[0]?.resources[0]?.content ?? '');
  return out;
}
`;

test('openapi-typescript types from docs/openapi.json type-check an openapi-fetch program', () => {
  mkdirSync(dir, { recursive: true });
  const gen = spawnSync(process.execPath, [join(root, 'node_modules/openapi-typescript/bin/cli.js'), join(root, 'docs/openapi.json'), '-o', join(dir, 'api.ts')], { encoding: 'utf8' });
  assert.equal(gen.status, 0, gen.stderr);
  writeFileSync(join(dir, 'program.ts'), PROGRAM);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true,
      allowImportingTsExtensions: true, skipLibCheck: true, types: [],
    },
    files: ['program.ts'],
  }));
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
});

test('every 2xx answer in docs/openapi.json has a real schema, not a bare object', () => {
  const doc = JSON.parse(readFileSync(join(root, 'docs/openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }> }>>;
  };
  const answers = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).flatMap(([method, op]) =>
    Object.entries(op.responses).map(([status, response]) => ({ name: `${method.toUpperCase()} ${path} ${status}`, status, response }))));
  const success = answers.filter((a) => /^2\d\d$/.test(a.status) && a.status !== '204');
  const bare = success.filter(({ response }) => {
    const schema = response.content?.['application/json']?.schema;
    return !schema || !['properties', 'oneOf', 'anyOf', 'allOf', '$ref', 'items'].some((k) => k in schema);
  }).map((a) => a.name);
  const checked = success.length;
  assert.ok(checked > 50, `only ${checked} success answers found`);
  assert.deepEqual(bare, [], 'success answers without a schema: add them to RESPONSES in contract/src/responses.ts');
});
