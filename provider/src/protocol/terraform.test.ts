// The protocol layer driven by the real terraform binary through the toy provider (testing/toy-provider.ts):
// plan, apply, an empty second plan, update in place, replacement, unknown values flowing between resources,
// sensitive and write-only values, an error diagnostic at an attribute path, import, and destroy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { findOnPath, setUpHarness, terraform, timeHandshake, type Harness, type Run } from './testing/terraform-harness.ts';

const terraformBinary = findOnPath('terraform');
const skip = terraformBinary === undefined ? 'terraform is not on the PATH: the end-to-end provider test needs the real binary' : false;

const providerBlock = `terraform {
  required_providers {
    toy = { source = "tollgate/toy" }
  }
}
provider "toy" {
  file = "\${path.module}/store.json"
}
`;

const mainTf = `${providerBlock}
variable "a_name" { default = "alpha" }
variable "kind" { default = "small" }

resource "toy_thing" "a" {
  name     = var.a_name
  kind     = var.kind
  secret   = "hunter2-secret"
  password = "write-only-pw"
  tags     = { env = "test" }
  owner    = { email = "owner@example.com" }
}

resource "toy_thing" "b" {
  name = "child-of-\${toy_thing.a.id}"
}

data "toy_lookup" "a" {
  id = toy_thing.a.id
}

output "looked_up" { value = data.toy_lookup.a.name }
`;

interface Thing { id: string; name: string; kind: string | null; revision: number; password: string | null; secret: string | null }

function things(dir: string): Thing[] {
  const parsed = JSON.parse(readFileSync(join(dir, 'store.json'), 'utf8')) as { things: Record<string, Thing> };
  return Object.values(parsed.things);
}

function ok(run: Run, what: string): string {
  assert.equal(run.status, 0, `${what} failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

test('terraform plans, applies, updates, replaces, imports and destroys through the protocol layer', { skip, timeout: 600_000 }, async (t) => {
  const harness: Harness = setUpHarness('toy', 'protocol/testing/toy-main.js');
  t.after(() => harness.cleanup());
  const times: Record<string, number> = {};
  const tf = (name: string, args: string[], cwd?: string): Run => {
    const run = terraform(harness, args, cwd);
    times[name] = run.ms;
    return run;
  };
  writeFileSync(join(harness.workDir, 'main.tf'), mainTf);

  await t.test('the plugin prints exactly one handshake line, quickly', async () => {
    const samples: number[] = [];
    for (let i = 0; i < 3; i++) {
      const { ms, line, extraStdout } = await timeHandshake(harness.pluginMain);
      assert.match(line, /^1\|6\|tcp\|127\.0\.0\.1:\d+\|grpc\|[A-Za-z0-9+/]+$/);
      assert.equal(extraStdout, '');
      samples.push(ms);
    }
    t.diagnostic(`start-up to handshake: ${samples.join(', ')} ms`);
  });

  await t.test('plan of new objects: unknown computed values, an unknown flowing to a dependent, secrets hidden', () => {
    const out = ok(tf('plan', ['plan', '-input=false']), 'plan');
    assert.match(out, /Plan: 2 to add, 0 to change, 0 to destroy/);
    assert.match(out, /id\s+= \(known after apply\)/);
    assert.match(out, /# toy_thing\.b will be created[\s\S]*name\s+= \(known after apply\)/);
    assert.match(out, /secret\s+= \(sensitive value\)/);
    assert.match(out, /password\s+= \(write-only attribute\)/);
    assert.doesNotMatch(out, /hunter2-secret|write-only-pw/);
  });

  await t.test('apply creates both objects; the dependent got the real id; write-only values are not stored', () => {
    const out = ok(tf('apply', ['apply', '-auto-approve', '-input=false']), 'apply');
    assert.match(out, /Apply complete! Resources: 2 added, 0 changed, 0 destroyed/);
    assert.match(out, /looked_up = "alpha"/);
    const [a, b] = sortByName(things(harness.workDir));
    assert.equal(b?.name, `child-of-${a?.id}`);
    assert.equal(a?.password, null);
    const state = readFileSync(join(harness.workDir, 'terraform.tfstate'), 'utf8');
    assert.doesNotMatch(state, /write-only-pw/);
  });

  await t.test('a second plan finds nothing to do (-detailed-exitcode 0)', () => {
    const run = tf('noop plan', ['plan', '-detailed-exitcode', '-input=false']);
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  });

  await t.test('a changed name updates in place: the id stays, the revision moves', () => {
    const before = things(harness.workDir).find((x) => x.name === 'alpha');
    const out = ok(tf('update', ['apply', '-auto-approve', '-var', 'a_name=renamed']), 'update');
    assert.match(out, /toy_thing\.a will be updated in-place/);
    assert.match(out, /Resources: 0 added, 1 changed, 0 destroyed/);
    const after = things(harness.workDir).find((x) => x.name === 'renamed');
    assert.equal(after?.id, before?.id);
    assert.equal(after?.revision, 2);
  });

  await t.test('a changed forceNew attribute replaces the object and the new id flows to the dependent', () => {
    const vars = ['-var', 'a_name=renamed', '-var', 'kind=large'];
    const out = ok(tf('replace', ['apply', '-auto-approve', ...vars]), 'replace');
    assert.match(out, /toy_thing\.a must be replaced/);
    assert.match(out, /kind\s+= "small" -> "large" # forces replacement/);
    assert.match(out, /Resources: 1 added, 1 changed, 1 destroyed/);
    const [a, b] = sortByName(things(harness.workDir));
    assert.equal(a?.kind, 'large');
    assert.equal(b?.name, `child-of-${a?.id}`);
    assert.equal(tf('noop plan 2', ['plan', '-detailed-exitcode', ...vars]).status, 0);
  });

  await t.test('a validation error is shown at the attribute that caused it', () => {
    const run = tf('invalid plan', ['plan', '-var', 'a_name=bad!', '-var', 'kind=large']);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /Error: Invalid name/);
    assert.match(run.stderr, /on main\.tf line \d+, in resource "toy_thing" "a":\s+\d+:\s+name\s+= var\.a_name/);
    assert.match(run.stderr, /A toy name cannot contain "!"/);
  });

  await t.test('terraform import adopts an existing object, after which the plan is empty', () => {
    const dir = join(harness.workDir, 'import');
    mkdirSync(dir);
    writeFileSync(join(dir, 'main.tf'), `${providerBlock}\nresource "toy_thing" "seeded" {\n  name = "seeded"\n  tags = { team = "core" }\n}\n`);
    writeFileSync(join(dir, 'store.json'), JSON.stringify({ things: { 'seed-1': { id: 'seed-1', name: 'seeded', tags: { team: 'core' }, revision: 4 } } }));
    const out = ok(tf('import', ['import', 'toy_thing.seeded', 'seed-1'], dir), 'import');
    assert.match(out, /Import successful!/);
    assert.equal(tf('plan after import', ['plan', '-detailed-exitcode'], dir).status, 0);
    const missing = tf('import missing', ['import', 'toy_thing.seeded', 'nope'], dir);
    assert.notEqual(missing.status, 0);
    assert.match(missing.stderr, /No such toy/);
  });

  await t.test('destroy removes everything', () => {
    const out = ok(tf('destroy', ['destroy', '-auto-approve', '-var', 'a_name=renamed', '-var', 'kind=large']), 'destroy');
    assert.match(out, /Destroy complete! Resources: 2 destroyed/);
    assert.deepEqual(things(harness.workDir), []);
  });

  t.diagnostic(`terraform times (ms): ${JSON.stringify(times)}`);
});

function sortByName(list: Thing[]): Thing[] {
  return [...list].sort((x, y) => (x.name.startsWith('child-of-') ? 1 : 0) - (y.name.startsWith('child-of-') ? 1 : 0));
}
