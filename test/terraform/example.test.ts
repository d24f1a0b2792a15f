// examples/terraform as a user runs it, with terraform and with tofu: offline init, apply, a clean second plan,
// destroy, against a real Tollgate. Prints how long a plan and an apply take (the README quotes these figures).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestApp, type TestApp } from '@tollgate/testkit/harness.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { CLI_NAMES, cliSkip, findCli, installProvider, terraform } from './kit.ts';

const exampleDir = fileURLToPath(new URL('../../examples/terraform/', import.meta.url));

// One Tollgate and one provider install for both CLIs, a user each, the two runs at once.
describe('examples/terraform', { concurrency: true }, () => {
  let t: TestApp;
  let upstream: McpUpstream;
  let installed: ReturnType<typeof installProvider> | undefined;

  before(async () => {
    t = await startTestApp();
    upstream = await startMcpUpstream();
    installed = installProvider();
  });

  after(async () => {
    if (installed) rmSync(installed.home, { recursive: true, force: true });
    await upstream?.close();
    await t?.close();
  });

  for (const name of CLI_NAMES) {
    test(`${name}: applies, plans clean and destroys`, { skip: cliSkip(name) }, async () => {
      const user = await t.createUser();
      const tf = terraform(await findCli(name), installed!.cliConfig, { TOLLGATE_URL: t.api, TOLLGATE_TOKEN: user.pat, TF_VAR_mcp_url: upstream.url, TF_VAR_openai_key: 'sk-example-secret' });
      try {
        tf.write(Object.fromEntries(readdirSync(exampleDir).filter((f) => f.endsWith('.tf')).map((f) => [f, readFileSync(join(exampleDir, f), 'utf8')])));
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
        const left = await t.client(user.pat).call('GET /api/mcp');
        assert.ok(left.ok);
        assert.equal(left.body.servers.length, 0);
        console.log(`# examples/terraform with ${name} (ms): init ${init.ms}, plan ${plan.ms}, apply ${apply.ms}, no-op plan ${again.ms}, destroy ${destroy.ms}`);
      } finally {
        tf.close();
      }
    });
  }
});
