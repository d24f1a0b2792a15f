import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { llmProxyRecordSchema, mcpCreateSchema, mcpServerRecordSchema, resourceRecordSchema, budgetRecordSchema } from '@tollgate/contract';
import { deriveResource } from './from-contract.ts';
import { MCP_SERVER, mcpServerResource } from '../resources/mcp-server.ts';
import { renderProviderDocs } from '../generated/docs.ts';
import { tollgateProvider } from '../provider.ts';
import { LLM_PROXY } from '../resources/llm-proxy.ts';
import { MCP_RESOURCE } from '../resources/mcp-resource.ts';
import { KEY_BUDGET } from '../resources/llm-key-budget.ts';
import { API_KEY } from '../resources/api-key.ts';

test('a field added to the contract appears by regeneration: attribute, type, description, body and state', () => {
  const body = mcpCreateSchema.extend({ retries: z.number().int().min(0).default(3).describe('How often a failed upstream call is retried.') });
  const record = mcpServerRecordSchema.extend({ retries: z.number().int() });
  const r = deriveResource({ description: 'x', body, record, facts: { auth_token: { secret: true } } });
  assert.deepEqual(r.schema.attributes.retries, { type: 'number', optional: true, computed: true, description: 'How often a failed upstream call is retried. Default 3.' });
  assert.equal(r.body({ name: 'n', url: 'https://u', retries: 5 }).retries, 5);
  assert.equal(r.state({ retries: 7 }, {}).retries, 7);
  assert.equal(MCP_SERVER.schema.attributes.retries, undefined, 'the real resource is untouched');
  const provider = tollgateProvider({});
  const pages = renderProviderDocs({ ...provider, resources: { ...provider.resources, tollgate_mcp_server: { ...mcpServerResource, schema: r.schema } } });
  const page = pages.find((f) => f.path.endsWith('resources/tollgate_mcp_server.md'))!.content;
  assert.match(page, /\| `retries` \| number \| optional, computed when unset \| How often a failed upstream call is retried\. Default 3\. \|/);
});

test('required, optional and computed come from the body schema; a null default is not computed', () => {
  const r = deriveResource({
    description: 'x',
    body: z.object({
      name: z.string().describe('Name.'),
      color: z.enum(['red', 'blue']).default('red').describe('Paint.'),
      note: z.string().nullable().default(null).describe('Free text.'),
      tags: z.array(z.string()).default([]).describe('Tags.'),
      limits: z.object({ rps: z.number().describe('Per second.'), burst: z.number().optional().describe('Burst.') }).optional().describe('Limits.'),
      grants: z.array(z.object({ id: z.string().describe('Id.') })).describe('Grants.'),
    }),
  });
  const a = r.schema.attributes;
  assert.deepEqual(a.name, { type: 'string', required: true, description: 'Name.' });
  const { check, ...color } = a.color!;
  assert.deepEqual(color, { type: 'string', optional: true, computed: true, description: 'Paint. One of red, blue. Default red.' });
  assert.equal(check!('blue'), undefined, 'an enum is checked at validate time against the contract');
  assert.match(String(check!('green')), /red.*blue|blue.*red/);
  assert.deepEqual(a.note, { type: 'string', optional: true, description: 'Free text.' });
  assert.deepEqual(a.tags, { type: ['list', 'string'], optional: true, computed: true, description: 'Tags.' });
  assert.equal(a.limits?.nested?.nesting, 'single');
  assert.deepEqual(a.limits?.nested?.attributes.rps, { type: 'number', required: true, description: 'Per second.' });
  assert.equal(a.limits?.nested?.attributes.burst?.optional, true);
  assert.equal(a.grants?.nested?.nesting, 'list');
  assert.equal(a.grants?.required, true);
});

test('Terraform-only facts: secrets, replacement, renames; a fact for a field the contract lacks is refused', () => {
  const a = LLM_PROXY.schema.attributes;
  assert.deepEqual([a.provider_key?.sensitive, a.provider_key_wo?.writeOnly, a.provider_key_wo_version?.type], [true, true, 'number']);
  assert.equal(a.provider, undefined);
  assert.equal(a.llm_provider?.required, true);
  assert.deepEqual(LLM_PROXY.renames, { provider: 'llm_provider' });
  assert.equal(API_KEY.schema.attributes.name?.forceNew, true);
  assert.deepEqual([API_KEY.schema.attributes.key?.sensitive, API_KEY.schema.attributes.key?.stable], [true, true]);
  assert.throws(() => deriveResource({ description: 'x', body: mcpCreateSchema, facts: { auth_tokn: { secret: true } } }), /auth_tokn/);
});

test('the body holds every argument in its REST form, null only where the field takes null, never a secret', () => {
  const b = LLM_PROXY.body({
    name: 'chat', llm_provider: 'openai', allowed_models: ['m'], default_model: null, provider_key: 'sk-x', provider_key_wo: null, provider_key_wo_version: null,
    log_conversations: false, auth: { mode: 'jwt', issuer: 'i', audience: 'a', jwks_json: null, clock_skew_s: 30 }, budget: null, id: 'ignored', proxy_host: 'ignored',
  });
  assert.deepEqual(b, {
    name: 'chat', provider: 'openai', allowedModels: ['m'], defaultModel: null, logConversations: false,
    auth: { mode: 'jwt', issuer: 'i', audience: 'a', clockSkewS: 30 }, budget: null,
  });
});

test('the state reads an answer back into attributes, keeping the secrets terraform sent', () => {
  const rec = llmProxyRecordSchema.parse({
    id: 'p1', name: 'chat', provider: 'openai', upstreamUrl: 'https://api.openai.com', allowedModels: [], defaultModel: null, logConversations: true,
    auth: { mode: 'svc_api_key', clockSkewS: 30 }, budget: { period: 'daily', capUsd: 5, hardBlock: false }, createdAt: 1, proxyHost: 'p1.proxy.localhost',
  });
  const s = LLM_PROXY.state(rec, { provider_key: 'sk-kept', provider_key_wo_version: 2 });
  assert.deepEqual(s, {
    id: 'p1', name: 'chat', llm_provider: 'openai', allowed_models: [], default_model: null, log_conversations: true,
    provider_key: 'sk-kept', provider_key_wo: null, provider_key_wo_version: 2,
    auth: { mode: 'svc_api_key', issuer: null, audience: null, jwks_json: null, clock_skew_s: 30 },
    budget: { period: 'daily', cap_usd: 5, hard_block: false }, proxy_host: 'p1.proxy.localhost',
  });
});

test('every argument a resource reads back is a field of the answer it reads (else every plan would show drift)', () => {
  const cases = [[MCP_SERVER, mcpServerRecordSchema], [LLM_PROXY, llmProxyRecordSchema], [MCP_RESOURCE, resourceRecordSchema], [KEY_BUDGET, budgetRecordSchema]] as const;
  for (const [resource, record] of cases) {
    const missing = Object.values(resource.readBack).filter((field) => !(field in record.shape));
    assert.deepEqual(missing, [], `${resource.schema.description}: fields the answer lacks`);
  }
});
