// CDKTF: the checked-in bindings (provider/cdktf/) are what @cdktf/provider-generator makes of the provider's schema
// as terraform reports it, and examples/cdktf type-checks, synthesizes and applies against a real Tollgate.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from '@tollgate/contract';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { installProvider, terraform, terraformAvailable } from './kit.ts';

const skip = terraformAvailable() ? false : 'terraform is not on the PATH';
const root = fileURLToPath(new URL('../../', import.meta.url));
const bindingsDir = join(root, 'provider', 'cdktf');

let t: TestApp;
let user: TestUser;
let upstream: McpUpstream;
let installed: ReturnType<typeof installProvider>;
const scratch = mkdtempSync(join(tmpdir(), 'tollgate-cdktf-test-'));

before(async () => {
  if (skip) return;
  t = await startTestApp();
  user = await t.createUser();
  upstream = await startMcpUpstream();
  installed = installProvider();
});

after(async () => {
  rmSync(scratch, { recursive: true, force: true });
  if (installed) rmSync(installed.home, { recursive: true, force: true });
  await upstream?.close();
  await t?.close();
});

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

test('the checked-in CDKTF bindings are current (regenerate: see docs/terraform.md)', { skip }, async () => {
  const tf = terraform(installed.cliConfig, { TOLLGATE_URL: t.api, TOLLGATE_TOKEN: user.pat });
  try {
    tf.write({ 'main.tf': 'terraform {\n  required_providers {\n    tollgate = { source = "tollgate/tollgate" }\n  }\n}\n' });
    await tf.ok('init');
    const schema = await tf.ok('providers', 'schema', '-json');
    const schemaFile = join(scratch, 'schema.json');
    writeFileSync(schemaFile, schema.stdout);
    const out = join(scratch, 'bindings');
    const g = spawnSync(process.execPath, [join(root, 'provider', 'scripts', 'cdktf-bindings.mjs'), schemaFile, out], { encoding: 'utf8' });
    assert.equal(g.status, 0, g.stderr);
    const fresh = files(out);
    const current = files(bindingsDir);
    assert.deepEqual([...current.keys()].sort(), [...fresh.keys()].sort(), 'the set of binding files differs');
    for (const [path, text] of fresh) assert.ok(current.get(path) === text, `provider/cdktf/${path} is stale`);
  } finally {
    tf.close();
  }
});

test('examples/cdktf type-checks, synthesizes and applies with terraform', { skip }, async () => {
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'examples', 'cdktf')], { encoding: 'utf8' });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);

  const outdir = join(scratch, 'cdktf.out');
  const synth = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'examples', 'cdktf', 'main.ts')], {
    cwd: join(root, 'examples', 'cdktf'), encoding: 'utf8',
    env: { ...process.env, CDKTF_OUTDIR: outdir, MCP_URL: upstream.url, OPENAI_API_KEY: 'sk-cdktf-secret', TF_CLI_CONFIG_FILE: installed.cliConfig },
  });
  assert.equal(synth.status, 0, synth.stderr);

  const tf = terraform(installed.cliConfig, { TOLLGATE_URL: t.api, TOLLGATE_TOKEN: user.pat });
  try {
    for (const f of ['cdk.tf.json']) tf.write({ [f]: readFileSync(join(outdir, 'stacks', 'tollgate', f), 'utf8') });
    await tf.ok('init');
    const apply = await tf.ok('apply', '-auto-approve');
    assert.match(apply.stdout, /Apply complete! Resources: 4 added/);
    const api = new ApiClient({ endpoint: t.api, token: user.pat });
    const keys = await api.call('GET /api/keys');
    assert.ok(keys.ok && keys.body.keys.some((k) => k.tags.includes('name:cdktf-agent')));
    const llm = await api.call('GET /api/llm');
    assert.ok(llm.ok);
    assert.deepEqual(llm.body.proxies[0]?.budget, { period: 'monthly', capUsd: 100, hardBlock: true });
    const rules = await api.call('GET /api/llm/:id/rules', { params: { id: llm.body.proxies[0]!.id } });
    assert.ok(rules.ok);
    assert.equal(rules.body.rules[0]?.rule_type, 'prompt_guard');
    assert.equal((await tf.run('plan', '-detailed-exitcode')).code, 0);
    await tf.ok('destroy', '-auto-approve');
    const after = await api.call('GET /api/llm');
    assert.ok(after.ok);
    assert.equal(after.body.proxies.length, 0);
  } finally {
    tf.close();
  }
});
