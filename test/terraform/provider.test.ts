// The Terraform provider end to end, under both `terraform` and `tofu`: the real binary, the provider installed by
// provider:install into a filesystem mirror (offline init), against a real Tollgate on loopback. One working
// directory per CLI is carried through the steps in order, the way a team's configuration lives: apply, no-op plan,
// update, replacement, drift, import, bad input, a wrong token, parallel keys, destroy. The two CLIs share the
// Tollgate, the upstream and the install, act for a user each, and run at the same time.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiClient, type ApiResult } from '@tollgate/contract';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { connect } from '@tollgate/testkit/mcp-kit.ts';
import { CLI_NAMES, cliSkip, findCli, installProvider, providerVersion, terraform, type CliName, type Terraform } from './kit.ts';
import { mainTf, type Vars } from './fixtures.ts';

/**
 * `tool_pinning` of `tollgate_mcp_server.tools`, in an override file that terraform and tofu merge into the block of
 * main.tf: every later main.tf of the steps keeps the mode without a variant of the shared configuration.
 */
const pinning = (mode: string) => ({ 'pinning_override.tf': `resource "tollgate_mcp_server" "tools" {\n  tool_pinning = "${mode}"\n}\n` });

/** The body of a call that must succeed. */
function must<T>(r: ApiResult<T>): T {
  if (!r.ok) throw new Error(`HTTP ${r.error.status}: ${r.error.message}`);
  return r.body;
}

interface Shared { t: TestApp; upstream: McpUpstream; cliConfig: string }

describe('terraform provider', { concurrency: true }, () => {
  const shared = {} as Shared;
  let home: string | undefined;

  before(async () => {
    shared.t = await startTestApp();
    shared.upstream = await startMcpUpstream();
    const installed = installProvider();
    home = installed.home;
    shared.cliConfig = installed.cliConfig;
  });

  after(async () => {
    if (home) rmSync(home, { recursive: true, force: true });
    await shared.upstream?.close();
    await shared.t?.close();
  });

  for (const name of CLI_NAMES) describe(name, { skip: cliSkip(name), concurrency: false }, () => steps(name, shared));
});

function steps(name: CliName, shared: Shared) {
  let t: TestApp;
  let user: TestUser;
  let upstream: McpUpstream;
  let tf: Terraform;
  let vars: Vars;
  const timings: Record<string, number> = {};

  let api: ApiClient;
  const apply = async (v: Vars) => {
    vars = v;
    tf.write({ 'main.tf': mainTf(v) });
    return tf.ok('apply', '-auto-approve');
  };
  /** `plan -detailed-exitcode`: 0 no changes, 2 changes. */
  const plan = () => tf.run('plan', '-detailed-exitcode');

  before(async () => {
    ({ t, upstream } = shared);
    user = await t.createUser();
    api = new ApiClient({ endpoint: t.api, token: user.pat });
    tf = terraform(await findCli(name), shared.cliConfig, { TOLLGATE_URL: t.api, TOLLGATE_TOKEN: user.pat });
  });

  after(() => {
    tf?.close();
    if (Object.keys(timings).length) console.log(`# ${name} timings (ms): ${JSON.stringify(timings)}`);
  });

  test('init works offline from the filesystem mirror', async () => {
    tf.write({ 'main.tf': mainTf({ mcpUrl: upstream.url }) });
    const r = await tf.ok('init');
    assert.ok(r.stdout.includes(`Installing tollgate/tollgate v${providerVersion}`), r.stdout);
    assert.ok(r.stdout.includes(`${tf.cli.product} has been successfully initialized`), r.stdout);
  });

  test('apply creates every object, and the secrets never appear in the output', async () => {
    tf.write(pinning('hide'));
    const r = await apply({ mcpUrl: upstream.url });
    timings.firstApply = r.ms;
    assert.match(r.stdout, /Apply complete! Resources: 7 added, 0 changed, 0 destroyed/);
    assert.doesNotMatch(r.stdout + r.stderr, /sk-terraform-test-secret/);
    const out = await tf.outputs();
    assert.deepEqual([...(out.tools as string[])].sort(), ['add', 'ask', 'big', 'counter', 'echo', 'headers', 'secret', 'slow']);
    assert.equal(out.email, user.email);
    assert.match(String(out.host_by_name), new RegExp(`^${String(out.mcp_id)}\\.`));
    assert.equal(out.pinning_by_name, 'hide');
    assert.doesNotMatch(r.stdout, new RegExp(String(out.agent_key)));

    const mcp = must(await api.call('GET /api/mcp/:id', { params: { id: String(out.mcp_id) } }));
    assert.equal(mcp.resources.length, 1);
    assert.equal(mcp.toolPinning, 'hide');
    const rules = must(await api.call('GET /api/mcp/:id/rules', { params: { id: String(out.mcp_id) } }));
    assert.deepEqual(rules.rules.map((x) => x.rule_type), ['rate_limit', 'tool_description_inject']);
    const llm = must(await api.call('GET /api/llm/:id', { params: { id: String(out.llm_id) } }));
    assert.deepEqual(llm.budget, { period: 'monthly', capUsd: 50, hardBlock: true });
    const keys = must(await api.call('GET /api/keys'));
    const key = keys.keys.find((k) => k.tags.includes('name:agent'))!;
    assert.ok(key.tags.includes(`mcp:${String(out.mcp_id)}:tool:echo`) && key.tags.includes('team-a'), key.tags.join(' '));
    const budget = must(await api.call('GET /api/llm/:id/keys/:credId/budget', { params: { id: String(out.llm_id), credId: key.id } }));
    assert.deepEqual(budget.budget, { period: 'daily', capUsd: 5, hardBlock: false });
  });

  test('a second plan after apply shows no changes', async () => {
    const r = await plan();
    timings.noopPlan = r.ms;
    assert.equal(r.code, 0, r.stdout + r.stderr);
  });

  test('the key from an output works as a client key through the gateway', async () => {
    const out = await tf.outputs();
    const id = String(out.mcp_id);
    const c = await connect(t, { id, user, pathUrl: `${t.gateway}/${id}/`, hostUrl: '' }, { token: String(out.agent_key) });
    try {
      const tools = await c.client.listTools();
      assert.deepEqual(tools.tools.map((x) => x.name), ['echo']);
      assert.match(tools.tools[0]!.description ?? '', /Managed by Terraform\.$/);
      const res = await c.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      assert.deepEqual(res.content, [{ type: 'text', text: 'hi' }]);
    } finally {
      await c.close();
    }
  });

  test('changes the API makes in place are planned and applied in place', async () => {
    const before = await tf.outputs();
    tf.write(pinning('block'));
    const r = await apply({ ...vars, budgetCap: 75, threshold: 5 });
    assert.match(r.stdout, /tollgate_mcp_server\.tools will be updated in-place/);
    assert.match(r.stdout, /~ tool_pinning\s+= "hide" -> "block"/);
    assert.match(r.stdout, /Apply complete! Resources: 0 added, 3 changed, 0 destroyed/);
    const after = await tf.outputs();
    assert.equal(after.llm_id, before.llm_id);
    assert.equal(after.mcp_id, before.mcp_id);
    assert.equal(must(await api.call('GET /api/mcp/:id', { params: { id: String(after.mcp_id) } })).toolPinning, 'block');
    assert.equal(after.pinning_by_name, 'block', 'the data source reads the setting too');
    const llm = must(await api.call('GET /api/llm/:id', { params: { id: String(after.llm_id) } }));
    assert.equal(llm.budget?.capUsd, 75);
    const rules = must(await api.call('GET /api/mcp/:id/rules', { params: { id: String(after.mcp_id) } }));
    assert.equal((rules.rules[0] as { threshold?: number }).threshold, 5);
    assert.equal((await plan()).code, 0);
  });

  test('a change the API cannot make in place replaces the object', async () => {
    const old = await tf.state('tollgate_api_key.agent');
    tf.write({ 'main.tf': mainTf({ ...vars, keyName: 'agent-v2' }) });
    const p = await tf.run('plan');
    assert.match(p.stdout, /tollgate_api_key\.agent must be replaced/);
    assert.match(p.stdout, /# forces replacement/);
    await apply({ ...vars, keyName: 'agent-v2' });
    const keys = must(await api.call('GET /api/keys')).keys;
    assert.ok(!keys.some((k) => k.id === old.id), 'the old key is deleted');
    const gone = await api.call('GET /api/keys/:id', { params: { id: String(old.id) } });
    assert.equal(gone.ok ? 200 : gone.error.status, 404);
    assert.ok(keys.some((k) => k.tags.includes('name:agent-v2')));
    assert.equal((await plan()).code, 0);
  });

  test('drift made through the REST API is planned and repaired', async () => {
    const out = await tf.outputs();
    const mcpId = String(out.mcp_id);
    must(await api.call('PATCH /api/llm/:id', { params: { id: String(out.llm_id) }, body: { name: 'renamed-by-hand', allowedModels: ['gpt-4o'] } }));
    const res = await tf.state('tollgate_mcp_resource.readme');
    must(await api.call('DELETE /api/mcp/:id/resources/:rid', { params: { id: mcpId, rid: String(res.id) } }));
    must(await api.call('PUT /api/mcp/:id/rules', { params: { id: mcpId }, body: { rules: [] } }));

    const p = await plan();
    assert.equal(p.code, 2, p.stdout + p.stderr);
    assert.match(p.stdout, /~ name\s+= "renamed-by-hand" -> "chat"/);
    assert.match(p.stdout, /tollgate_mcp_resource\.readme will be created/);
    assert.match(p.stdout, /tollgate_rule_set\.mcp will be updated in-place/);
    await tf.ok('apply', '-auto-approve');
    assert.equal(must(await api.call('GET /api/llm/:id', { params: { id: String(out.llm_id) } })).name, 'chat');
    assert.equal(must(await api.call('GET /api/mcp/:id/rules', { params: { id: mcpId } })).rules.length, 2);
    assert.equal((await plan()).code, 0);
  });

  test('objects created through REST are imported, composite ids included', async () => {
    const sid = must(await api.call('POST /api/mcp', { body: { name: 'handmade', url: upstream.url } })).server.id;
    const r = must(await api.call('POST /api/mcp/:id/resources', { params: { id: sid }, body: { uri: 'docs://handmade', name: 'handmade', content: 'x' } }));
    const extra = `
resource "tollgate_mcp_server" "handmade" {
  name = "handmade"
  url  = "${upstream.url}"
}
resource "tollgate_mcp_resource" "handmade" {
  mcp_server_id = tollgate_mcp_server.handmade.id
  uri           = "docs://handmade"
  name          = "handmade"
  content       = "x"
}
import {
  to = tollgate_mcp_server.handmade
  id = "${sid}"
}
`;
    tf.write({ 'main.tf': mainTf({ ...vars, extra }) });
    await tf.ok('import', 'tollgate_mcp_resource.handmade', `${sid}/${r.id}`);
    const p = await tf.run('plan', '-detailed-exitcode');
    assert.match(p.stdout, /Plan: 1 to import, 0 to add, 0 to change, 0 to destroy/, p.stdout + p.stderr);
    await tf.ok('apply', '-auto-approve');
    vars = { ...vars, extra };
    assert.equal((await plan()).code, 0);
    const bad = await tf.run('import', 'tollgate_llm_key_budget.agent', 'not-a-composite-id');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /expected <llm proxy id>\/<api key id>, got "not-a-composite-id"/);
  });

  test('bad input is a diagnostic on the attribute, with the server\'s message, and creates nothing', async () => {
    const extra = `${vars.extra ?? ''}
resource "tollgate_llm_proxy" "bad" {
  name         = "bad"
  llm_provider = "openai"
  budget = {
    period  = "monthly"
    cap_usd = -1
  }
}
`;
    tf.write({ 'main.tf': mainTf({ ...vars, extra }) });
    const r = await tf.run('apply', '-auto-approve');
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Creating the LLM proxy failed \(HTTP 400\)/);
    assert.match(r.stderr, /budget\.capUsd: must be >= 0/);
    assert.match(r.stderr, /\d+:\s+budget = \{/, 'terraform points at the attribute in the configuration');
    const proxies = must(await api.call('GET /api/llm')).proxies;
    assert.ok(!proxies.some((p) => p.name === 'bad'));

    const wrongRule = `${vars.extra ?? ''}
resource "tollgate_rule_set" "bad" {
  proxy_kind = "llm"
  proxy_id   = tollgate_llm_proxy.chat.id
  rules = [{ rule_type = "ip_acl", action = "deny", cidrs = ["10.0.0.0/8"], tools = ["*"], threshold = 3 }]
}
`;
    tf.write({ 'main.tf': mainTf({ ...vars, extra: wrongRule }) });
    const v = await tf.run('validate');
    assert.notEqual(v.code, 0);
    assert.match(v.stderr, /rules\[0\]\.threshold: is not a field of ip_acl rules/);
    assert.match(v.stderr, /\d+:\s+rules = \[\{ rule_type = "ip_acl"/, 'terraform points at the rule');

    // jwt mode pins the audience and the issuer: the API's refusal, at validate time, on the attribute.
    const unpinned = `${vars.extra ?? ''}
resource "tollgate_mcp_server" "jwt" {
  name = "jwt"
  url  = "${vars.mcpUrl}"
  auth = {
    mode      = "jwt"
    issuer    = "https://idp.example"
    jwks_json = jsonencode({ keys = [] })
  }
}
`;
    tf.write({ 'main.tf': mainTf({ ...vars, extra: unpinned }) });
    const j = await tf.run('validate');
    assert.notEqual(j.code, 0);
    assert.match(j.stderr, /Invalid inbound auth/);
    assert.match(j.stderr, /auth\.audience: is required when mode is jwt/);
    assert.doesNotMatch(j.stderr, /auth\.issuer/);
    assert.match(j.stderr, /\d+:\s+auth = \{/, 'terraform points at the auth block');
    tf.write({ 'main.tf': mainTf(vars) });

    // A mode the contract does not know: refused at validate time in the contract's words, before anything reaches
    // the API; the proxy stays as it was.
    tf.write(pinning('loud'));
    const m = await tf.run('validate');
    assert.notEqual(m.code, 0);
    assert.match(m.stderr, /tool_pinning: must be off, warn, hide or block/);
    // (The value sits in an override file, which terraform merges into main.tf's block, so it points at the block.)
    const out = await tf.outputs();
    assert.equal(must(await api.call('GET /api/mcp/:id', { params: { id: String(out.mcp_id) } })).toolPinning, 'block');
    tf.write(pinning('block'));
  });

  test('a wrong token is a clear 401 diagnostic', async () => {
    const wrong = terraform(tf.cli, tf.env.TF_CLI_CONFIG_FILE!, { TOLLGATE_URL: t.api, TOLLGATE_TOKEN: 'svc-not-a-real-token' });
    try {
      wrong.write({ 'main.tf': 'provider "tollgate" {}\ndata "tollgate_profile" "me" {}\nterraform {\n  required_providers {\n    tollgate = { source = "tollgate/tollgate" }\n  }\n}\n' });
      await wrong.ok('init');
      const p = await wrong.run('plan');
      assert.notEqual(p.code, 0);
      assert.match(p.stderr, /Reading the profile failed \(HTTP 401\)/);
      assert.match(p.stderr, /Check the provider's token/);
    } finally {
      wrong.close();
    }
  });

  test('twenty keys apply with -parallelism=10', async () => {
    const extra = `${vars.extra ?? ''}
resource "tollgate_api_key" "fleet" {
  count           = 20
  name            = "fleet-\${count.index}"
  llm_permissions = [{ id = tollgate_llm_proxy.chat.id, models = ["gpt-4o-mini"] }]
}
`;
    tf.write({ 'main.tf': mainTf({ ...vars, extra }) });
    const r = await tf.ok('apply', '-auto-approve', '-parallelism=10');
    timings.apply20Keys = r.ms;
    assert.match(r.stdout, /Resources: 20 added, 0 changed, 0 destroyed/);
    const keys = must(await api.call('GET /api/keys')).keys;
    assert.equal(keys.filter((k) => k.tags.some((x) => x.startsWith('name:fleet-'))).length, 20);
    assert.equal((await plan()).code, 0);
  });

  test('a write-only token reaches the server and never the state', async () => {
    const guarded = await startMcpUpstream({ token: 'upstream-wo-secret' });
    try {
      const woServer = (version: number) => `${vars.extra ?? ''}
resource "tollgate_mcp_server" "guarded" {
  name                  = "guarded"
  url                   = "${guarded.url}"
  auth_type             = "bearer"
  auth_token_wo         = "upstream-wo-secret"
  auth_token_wo_version = ${version}
  discover_tools        = true
}
output "guarded_tools" { value = length(tollgate_mcp_server.guarded.tools) }
`;
      tf.write({ 'main.tf': mainTf({ ...vars, extra: woServer(1) }) });
      const r = await tf.ok('apply', '-auto-approve');
      assert.doesNotMatch(r.stdout, /upstream-wo-secret/);
      assert.equal((await tf.outputs()).guarded_tools, 8, 'discovery passed the upstream\'s bearer check');
      assert.doesNotMatch(readFileSync(join(tf.dir, 'terraform.tfstate'), 'utf8'), /upstream-wo-secret/);
      assert.equal((await plan()).code, 0, 'an unchanged version sends nothing');
      tf.write({ 'main.tf': mainTf({ ...vars, extra: woServer(2) }) });
      const bumped = await tf.run('plan', '-detailed-exitcode');
      assert.equal(bumped.code, 2);
      assert.match(bumped.stdout, /~ auth_token_wo_version\s+= 1 -> 2/);
      tf.write({ 'main.tf': mainTf(vars) });
      await tf.ok('apply', '-auto-approve');
    } finally {
      await guarded.close();
    }
  });

  test('destroy leaves nothing behind', async () => {
    const r = await tf.ok('destroy', '-auto-approve');
    timings.destroy = r.ms;
    assert.equal(must(await api.call('GET /api/mcp')).servers.length, 0);
    assert.equal(must(await api.call('GET /api/llm')).proxies.length, 0);
    assert.equal(must(await api.call('GET /api/keys')).keys.length, 0);
  });
}
