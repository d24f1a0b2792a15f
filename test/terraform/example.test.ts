// examples/terraform as a user runs it: offline init, apply, a clean second plan, destroy, against a real Tollgate.
// Prints how long a plan and an apply take (the README quotes these figures).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from '@tollgate/contract';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { installProvider, terraform, terraformAvailable, type Terraform } from './kit.ts';

const skip = terraformAvailable() ? false : 'terraform is not on the PATH';
const exampleDir = fileURLToPath(new URL('../../examples/terraform/', import.meta.url));

let t: TestApp;
let user: TestUser;
let upstream: McpUpstream;
let tf: Terraform;
let home: string;

before(async () => {
  if (skip) return;
  t = await startTestApp();
  user = await t.createUser();
  upstream = await startMcpUpstream();
  const installed = installProvider();
  home = installed.home;
  tf = terraform(installed.cliConfig, { TOLLGATE_URL: t.api, TOLLGATE_TOKEN: user.pat, TF_VAR_mcp_url: upstream.url, TF_VAR_openai_key: 'sk-example-secret' });
  tf.write(Object.fromEntries(readdirSync(exampleDir).filter((f) => f.endsWith('.tf')).map((f) => [f, readFileSync(join(exampleDir, f), 'utf8')])));
});

after(async () => {
  tf?.close();
  if (home) rmSync(home, { recursive: true, force: true });
  await upstream?.close();
  await t?.close();
});

test('examples/terraform applies, plans clean and destroys', { skip }, async () => {
  const init = await tf.ok('init');
  const plan = await tf.ok('plan', '-out=tfplan');
  assert.match(plan.stdout, /Plan: 7 to add, 0 to change, 0 to destroy/);
  const apply = await tf.ok('apply', 'tfplan');
  assert.match(apply.stdout, /Apply complete! Resources: 7 added/);
  assert.doesNotMatch(apply.stdout + plan.stdout, /sk-example-secret/);
  const again = await tf.run('plan', '-detailed-exitcode');
  assert.equal(again.code, 0, again.stdout + again.stderr);
  const key = (await tf.ok('output', '-raw', 'agent_key')).stdout;
  assert.match(key, /^\S{20,}$/);
  const destroy = await tf.ok('destroy', '-auto-approve');
  const left = await new ApiClient({ endpoint: t.api, token: user.pat }).call('GET /api/mcp');
  assert.ok(left.ok);
  assert.equal(left.body.servers.length, 0);
  console.log(`# examples/terraform (ms): init ${init.ms}, plan ${plan.ms}, apply ${apply.ms}, no-op plan ${again.ms}, destroy ${destroy.ms}`);
});
