// CDKTF: the checked-in bindings (provider/cdktf/) are what @cdktf/provider-generator makes of the provider's schema
// as terraform reports it (and tofu reports the same), and examples/cdktf type-checks, synthesizes and applies against
// a real Tollgate with either CLI.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestApp, type TestApp } from '@tollgate/testkit/harness.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { CLI_NAMES, cliSkip, findCli, installProvider, terraform, type CliName } from './kit.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bindingsDir = join(root, 'provider', 'cdktf');

let t: TestApp;
let upstream: McpUpstream;
let installed: ReturnType<typeof installProvider> | undefined;
const scratch = mkdtempSync(join(tmpdir(), 'tollgate-cdktf-test-'));

before(async () => {
  t = await startTestApp();
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

interface NodeRun { status: number; stdout: string; stderr: string }

/** A node script as a child process, without blocking the other CLI's test in this file. */
function runNode(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<NodeRun> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, args, { cwd: opts.cwd, env: opts.env ?? process.env });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    p.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    p.on('close', (code) => resolve({ status: code ?? 1, stdout, stderr }));
  });
}

let synthesized: Promise<string> | undefined;

/** Type-checks and synthesizes examples/cdktf once for both CLIs; resolves to the stack's directory. */
function synthesize(): Promise<string> {
  synthesized ??= (async () => {
    const tsc = await runNode([join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'examples', 'cdktf')]);
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
    const outdir = join(scratch, 'cdktf.out');
    const synth = await runNode(['--import', 'tsx', join(root, 'examples', 'cdktf', 'main.ts')], {
      cwd: join(root, 'examples', 'cdktf'),
      env: { ...process.env, CDKTF_OUTDIR: outdir, MCP_URL: upstream.url, OPENAI_API_KEY: 'sk-cdktf-secret', TF_CLI_CONFIG_FILE: installed!.cliConfig },
    });
    assert.equal(synth.status, 0, synth.stderr);
    return join(outdir, 'stacks', 'tollgate');
  })();
  return synthesized;
}

async function bindingsAreCurrent(name: CliName) {
  const user = await t.createUser();
  const tf = terraform(await findCli(name), installed!.cliConfig, { TOLLGATE_URL: t.api, TOLLGATE_TOKEN: user.pat });
  try {
    // The bindings carry the provider's address in their doc links; the full address makes tofu (whose short form is
    // registry.opentofu.org/...) report the schema under the same one, so both CLIs must produce identical bindings.
    tf.write({ 'main.tf': 'terraform {\n  required_providers {\n    tollgate = { source = "registry.terraform.io/tollgate/tollgate" }\n  }\n}\n' });
    await tf.ok('init');
    const schema = await tf.ok('providers', 'schema', '-json');
    const schemaFile = join(scratch, `schema-${name}.json`);
    writeFileSync(schemaFile, schema.stdout);
    const out = join(scratch, `bindings-${name}`);
    const g = await runNode([join(root, 'provider', 'scripts', 'cdktf-bindings.mjs'), schemaFile, out]);
    assert.equal(g.status, 0, g.stderr);
    const fresh = files(out);
    const current = files(bindingsDir);
    assert.deepEqual([...current.keys()].sort(), [...fresh.keys()].sort(), 'the set of binding files differs');
    for (const [path, text] of fresh) assert.ok(current.get(path) === text, `provider/cdktf/${path} is stale`);
  } finally {
    tf.close();
  }
}

async function exampleApplies(name: CliName) {
  const stack = await synthesize();
  const user = await t.createUser();
  const tf = terraform(await findCli(name), installed!.cliConfig, { TOLLGATE_URL: t.api, TOLLGATE_TOKEN: user.pat });
  try {
    for (const f of ['cdk.tf.json']) tf.write({ [f]: readFileSync(join(stack, f), 'utf8') });
    await tf.ok('init');
    const apply = await tf.ok('apply', '-auto-approve');
    assert.match(apply.stdout, /Apply complete! Resources: 4 added/);
    const api = t.client(user.pat);
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
}

describe('cdktf', { concurrency: true }, () => {
  for (const name of CLI_NAMES) {
    describe(name, { skip: cliSkip(name), concurrency: false }, () => {
      test('the checked-in CDKTF bindings are current (regenerate: see docs/terraform.md)', () => bindingsAreCurrent(name));
      test(`examples/cdktf type-checks, synthesizes and applies with ${name}`, () => exampleApplies(name));
    });
  }
});
