// The CRDs under crds/ on a real API server (test/k8s/control-plane.sh): it accepts them (structural schemas, CEL
// compilation and its cost estimate), admits valid objects and refuses invalid ones with the CEL rules' messages,
// before the operator sees them. Skipped when the control-plane binaries are not built (control-plane.sh build).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ApiException, ApiextensionsV1Api, CustomObjectsApi, KubeConfig, loadYaml, type V1CustomResourceDefinition } from '@kubernetes/client-node';

const root = new URL('../../', import.meta.url).pathname;
const script = join(root, 'test/k8s/control-plane.sh');
const cache = process.env.TOLLGATE_K8S_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'tollgate/k8s-testenv');
const built = ['etcd', 'kube-apiserver', 'kube-controller-manager'].every((b) => existsSync(join(cache, 'bin', b)));
const skip = built ? false : 'the control-plane binaries are not built: run test/k8s/control-plane.sh build';

const NS = 'default';
let dir = '';
let objects: CustomObjectsApi;

before(async () => {
  if (!built) return;
  dir = mkdtempSync(join(tmpdir(), 'tollgate-crds-'));
  const up = spawnSync(script, ['up', dir], { encoding: 'utf8' });
  assert.equal(up.status, 0, up.stderr);
  const kc = new KubeConfig();
  kc.loadFromFile(up.stdout.trim());
  objects = kc.makeApiClient(CustomObjectsApi);
  const crds = kc.makeApiClient(ApiextensionsV1Api);
  const files = readdirSync(join(root, 'crds')).filter((f) => f.endsWith('.yaml'));
  // loadYaml maps the wire names (x-kubernetes-validations, ...) onto the client's model; a plain YAML parse would
  // lose every one of them when the client serializes the body.
  for (const f of files) await crds.createCustomResourceDefinition({ body: loadYaml<V1CustomResourceDefinition>(readFileSync(join(root, 'crds', f), 'utf8')) });
  for (const f of files) await waitEstablished(crds, f.replace(/\.yaml$/, ''));
});
after(() => {
  if (dir) spawnSync(script, ['down', dir], { stdio: 'inherit' });
});

async function waitEstablished(crds: ApiextensionsV1Api, name: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const crd = await crds.readCustomResourceDefinition({ name });
    if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} was not established`);
}

const PLURAL: Record<string, string> = { McpProxy: 'mcpproxies', LlmProxy: 'llmproxies', ApiKey: 'apikeys', RuleSet: 'rulesets' };

function object(kind: string, name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'tollgate.dev/v1beta1', kind, metadata: { name }, spec };
}

type Obj = ReturnType<typeof object>;

async function create(body: Obj, dryRun = true): Promise<void> {
  await objects.createNamespacedCustomObject({ group: 'tollgate.dev', version: 'v1beta1', namespace: NS, plural: PLURAL[body.kind]!, body, ...(dryRun ? { dryRun: 'All' } : {}) });
}

async function replace(body: Obj): Promise<void> {
  const params = { group: 'tollgate.dev', version: 'v1beta1', namespace: NS, plural: PLURAL[body.kind]!, name: body.metadata.name };
  const current = await objects.getNamespacedCustomObject(params) as { metadata: { resourceVersion: string } };
  await objects.replaceNamespacedCustomObject({ ...params, body: { ...body, metadata: { ...body.metadata, resourceVersion: current.metadata.resourceVersion } } });
}

/** The API server's message for a refused write. */
async function refusal(write: Promise<void>): Promise<string> {
  try {
    await write;
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    assert.equal(err.code, 422);
    const status = (typeof err.body === 'string' ? JSON.parse(err.body) : err.body) as { message: string };
    return status.message;
  }
  assert.fail('the API server admitted it');
}

const rule = (fields: Record<string, unknown>) => ({ tools: ['*'], ...fields });
const rateLimit = (fields: Record<string, unknown> = {}) => rule({ rule_type: 'rate_limit', name: 'per-ip', match_key: 'ip', threshold: 10, timespan: 60, ...fields });
const ruleSet = (kind: string, rules: unknown[], name = 'bad') => object('RuleSet', name, { targetRef: { kind, name: 'p' }, rules });

test('the API server admits valid objects of every kind, and the printer columns read them', { skip }, async () => {
  await create(object('McpProxy', 'docs', {
    url: 'https://mcp.example.com/mcp', upstreamAuth: { type: 'bearer', tokenSecretRef: { name: 'docs-token', key: 'token' } },
    auth: { mode: 'jwt', issuer: 'https://idp.example', audience: 'docs', jwksJson: '{"keys":[]}' }, resources: [{ uri: 'file:///a', name: 'a', content: 'hello' }],
  }));
  await create(object('LlmProxy', 'gpt', { provider: 'openai', allowedModels: ['gpt-4o'], budget: { period: 'monthly', capUsd: 100 } }));
  await create(object('ApiKey', 'alice', { mcpPermissions: [{ proxyRef: { name: 'docs' }, tools: ['*'] }] }));
  await create(ruleSet('McpProxy', [
    rateLimit({ ban_after_n_exceeded: 3, ban_timespan: 600 }),
    rule({ rule_type: 'ip_acl', action: 'deny', cidrs: ['10.0.0.0/8'] }),
    rule({ rule_type: 'mcp_resource', resource_id: 'r1', uri: 'file:///x', resource_name: 'x', content: 'hi', expose_as_tool: true, tool_name: 'read_x' }),
    rule({ rule_type: 'lambda', tools: ['search'], phase: 'response', name: 'l1', lua_code: 'return 1' }),
  ], 'docs-rules'));
  await create(ruleSet('LlmProxy', [
    rateLimit({ match_key: 'tokens_per_minute' }), rule({ rule_type: 'prompt_guard', detectors: ['pi_dan'], action: 'block', phase: 'request' }),
  ], 'gpt-rules'));
});

test('a rule missing a field its type needs, or holding another type\'s field, is refused naming it', { skip }, async () => {
  assert.match(await refusal(create(ruleSet('McpProxy', [rateLimit({ timespan: undefined })]))),
    /spec\.rules\[0\]: Required value: rate_limit rules need name, match_key, threshold and timespan/);
  assert.match(await refusal(create(ruleSet('McpProxy', [rule({ rule_type: 'ip_acl', action: 'deny', cidrs: ['1.2.3.4'], threshold: 5 })]))),
    /spec\.rules\[0\]\.threshold: Forbidden: threshold is a field of rate_limit rules only/);
  assert.match(await refusal(create(ruleSet('McpProxy', [rule({ rule_type: 'lambda', phase: 'request', name: 'l', lua_code: 'x' })]))),
    /spec\.rules\[0\]\.phase: Invalid value: .*phase of lambda rules must be one of access, response/);
});

test('the cross-field refinements of the contract hold in the API server', { skip }, async () => {
  assert.match(await refusal(create(ruleSet('McpProxy', [rateLimit({ ban_timespan: 30 })]))),
    /spec\.rules\[0\]\.ban_timespan: Invalid value: .*ban_after_n_exceeded and ban_timespan must be set together/);
  assert.match(await refusal(create(ruleSet('McpProxy', [rule({ rule_type: 'mcp_resource', resource_id: 'r', uri: 'u', resource_name: 'n', content: 'c', expose_as_tool: true })]))),
    /spec\.rules\[0\]\.tool_name: Invalid value: .*tool_name is required when expose_as_tool is true/);
});

test('the target\'s kind decides which rules are valid, as the contract\'s checkRules does', { skip }, async () => {
  const cases: Array<[string, unknown, string]> = [
    ['LlmProxy', rule({ rule_type: 'ip_acl', tools: ['search'], action: 'deny', cidrs: ['1.2.3.4'] }), 'tools must be ["*"] on LlmProxy targets'],
    ['LlmProxy', rule({ rule_type: 'lambda', phase: 'response', name: 'l', lua_code: 'x' }), 'lambda phase response is not valid on LlmProxy targets'],
    ['LlmProxy', rule({ rule_type: 'response_replace', pattern: 'a', replacement: 'b' }), 'rule_type response_replace is not valid on LlmProxy targets'],
    ['McpProxy', rule({ rule_type: 'prompt_guard', detectors: ['pi_dan'], action: 'block' }), 'rule_type prompt_guard is not valid on McpProxy targets'],
    ['McpProxy', rateLimit({ match_key: 'tokens_per_minute' }), 'rate_limit match_key tokens_per_minute is not valid on McpProxy targets'],
  ];
  for (const [kind, r, message] of cases) assert.ok((await refusal(create(ruleSet(kind, [r])))).includes(`spec.rules: Invalid value: "object": ${message}`), message);
  assert.match(await refusal(create(ruleSet('McpProxy', [rateLimit(), rateLimit({ match_key: 'consumer' })]))), /rate_limit names must be unique/);
});

test('proxies: tokenSecretRef if and only if bearer, jwksJson in jwt mode, one resource per uri', { skip }, async () => {
  const mcp = (spec: Record<string, unknown>) => object('McpProxy', 'bad', { url: 'https://x.example', ...spec });
  assert.match(await refusal(create(mcp({ upstreamAuth: { type: 'bearer' } }))),
    /spec\.upstreamAuth\.tokenSecretRef: Required value: tokenSecretRef is required when type is bearer/);
  assert.match(await refusal(create(mcp({ upstreamAuth: { tokenSecretRef: { name: 's', key: 'k' } } }))),
    /spec\.upstreamAuth\.tokenSecretRef: Forbidden: tokenSecretRef must not be set unless type is bearer/);
  assert.match(await refusal(create(mcp({ auth: { mode: 'jwt' } }))), /spec\.auth\.jwksJson: Required value: jwksJson is required when mode is jwt/);
  assert.match(await refusal(create(object('LlmProxy', 'bad', { provider: 'openai', auth: { mode: 'jwt' } }))), /jwksJson is required when mode is jwt/);
  assert.match(await refusal(create(mcp({ resources: [{ uri: 'a', name: 'x', content: '' }, { uri: 'a', name: 'y', content: '' }] }))),
    /spec\.resources\[1\]: Duplicate value: \{"uri":"a"\}/);
});

test('proxies: jwt mode without an audience or an issuer is refused on that field (a JWKS alone admits any application\'s tokens)', { skip }, async () => {
  const jwt = { mode: 'jwt', issuer: 'https://idp.example', audience: 'docs', jwksJson: '{"keys":[]}' };
  const without = (field: 'audience' | 'issuer') => Object.fromEntries(Object.entries(jwt).filter(([k]) => k !== field));
  const mcp = (auth: Record<string, unknown>) => object('McpProxy', 'bad', { url: 'https://x.example', auth });
  const noAudience = await refusal(create(mcp(without('audience'))));
  assert.match(noAudience, /spec\.auth\.audience: Required value: audience is required when mode is jwt/);
  assert.doesNotMatch(noAudience, /issuer|jwksJson/);
  assert.match(await refusal(create(mcp(without('issuer')))), /spec\.auth\.issuer: Required value: issuer is required when mode is jwt/);
  assert.match(await refusal(create(object('LlmProxy', 'bad', { provider: 'openai', auth: without('audience') }))),
    /spec\.auth\.audience: Required value: audience is required when mode is jwt/);
  await create(mcp(jwt));
  await create(mcp({ mode: 'svc_api_key' }));
});

test('a RuleSet\'s targetRef and an ApiKey\'s secretName cannot change', { skip }, async () => {
  await create(ruleSet('McpProxy', [], 'fixed'), false);
  assert.match(await refusal(replace(object('RuleSet', 'fixed', { targetRef: { kind: 'McpProxy', name: 'other' } }))), /spec\.targetRef: Invalid value: .*targetRef is immutable/);
  await replace(object('RuleSet', 'fixed', { targetRef: { kind: 'McpProxy', name: 'p' }, order: 3 }));
  await create(object('ApiKey', 'bob', { secretName: 'bob-key' }), false);
  assert.match(await refusal(replace(object('ApiKey', 'bob', { secretName: 'other' }))), /spec\.secretName: Invalid value: .*secretName is immutable/);
  assert.match(await refusal(replace(object('ApiKey', 'bob', {}))), /secretName is immutable/);
  await replace(object('ApiKey', 'bob', { secretName: 'bob-key', customTags: ['team-a'] }));
});
