// The provider installed the way registry users install it: `terraform init` and `tofu init` find
// registry.tollgate.test/tollgate/tollgate by service discovery over HTTPS (test/terraform/registry.ts), download the
// package of a release built by scripts/release.mjs, check it against the signed SHA256SUMS, then apply and destroy a
// small configuration against a real Tollgate. Nothing leaves loopback.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestApp, type TestApp } from '@tollgate/testkit/harness.ts';
import { startMcpUpstream, type McpUpstream } from '@tollgate/testkit/mcp-upstream.ts';
import { CLI_NAMES, cliSkip, findCli, providerVersion, terraform, type CliName } from './kit.ts';
import { keyId, REGISTRY_HOST, releasePackages, startRegistry, type Registry } from './registry.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const source = `${REGISTRY_HOST}/tollgate/tollgate`;

/** `node scripts/release.mjs --out DIR`: the release a registry would publish (a throwaway signing key). */
function buildRelease(out: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(root, 'scripts', 'release.mjs'), '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    p.stdout.on('data', (d: Buffer) => { log += d.toString(); });
    p.stderr.on('data', (d: Buffer) => { log += d.toString(); });
    p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`scripts/release.mjs --out ${out} exited ${code}:\n${log}`))));
  });
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function configTf(mcpUrl: string): string {
  return `terraform {
  required_providers {
    tollgate = {
      source  = "${source}"
      version = "${providerVersion}"
    }
  }
}

provider "tollgate" {}

resource "tollgate_mcp_server" "docs" {
  name = "from-registry"
  url  = "${mcpUrl}"
}

resource "tollgate_mcp_resource" "readme" {
  mcp_server_id = tollgate_mcp_server.docs.id
  uri           = "docs://readme"
  name          = "readme"
  content       = "installed from a registry"
}
`;
}

describe('provider registry over HTTPS', { concurrency: true }, () => {
  let scratch: string;
  let releaseDir: string;
  let registry: Registry;
  let tampered: Registry;
  let forged: Registry;
  let t: TestApp;
  let upstream: McpUpstream;
  let cliConfig: string;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'tollgate-registry-test-'));
    releaseDir = join(scratch, 'release');
    [t, upstream] = await Promise.all([startTestApp(), startMcpUpstream(), buildRelease(releaseDir)]);
    registry = await startRegistry({ releaseDir });
    // The same release with every package one byte longer than the one SHA256SUMS was signed over; and the same
    // again with SHA256SUMS rewritten to match, which only its signature can give away.
    const longer = (bytes: Buffer) => Buffer.concat([bytes, Buffer.from([0])]);
    tampered = await startRegistry({ releaseDir, tamper: (file, bytes) => (file.endsWith('.zip') ? longer(bytes) : bytes) });
    const rewrite = (sums: Buffer) => sums.toString('utf8').replace(/^([0-9a-f]{64}) {2}(\S+\.zip)$/gm,
      (_line, _sum: string, name: string) => `${sha256(longer(readFileSync(join(releaseDir, name))))}  ${name}`);
    forged = await startRegistry({
      releaseDir,
      tamper: (file, bytes) => (file.endsWith('.zip') ? longer(bytes) : file.endsWith('_SHA256SUMS') ? Buffer.from(rewrite(bytes)) : bytes),
    });
    // Direct installation only: no mirror, no implied local directories, so the package can only come from the registry.
    cliConfig = join(scratch, 'terraformrc');
    writeFileSync(cliConfig, 'provider_installation {\n  direct {}\n}\n');
  });

  after(async () => {
    await registry?.close();
    await tampered?.close();
    await forged?.close();
    await upstream?.close();
    await t?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const workdir = async (name: CliName, env: Record<string, string>) => {
    const user = await t.createUser();
    const tf = terraform(await findCli(name), cliConfig, { ...env, TOLLGATE_URL: t.api, TOLLGATE_TOKEN: user.pat });
    tf.write({ 'main.tf': configTf(upstream.url) });
    return { tf, user };
  };

  for (const name of CLI_NAMES) {
    describe(name, { skip: cliSkip(name), concurrency: false }, () => {
      test(`${name} init installs ${source} by service discovery, verifies it, applies and destroys`, async () => {
        const { tf, user } = await workdir(name, registry.env);
        try {
          const init = await tf.ok('init');
          const key = keyId(readFileSync(join(releaseDir, 'signing-key.asc'), 'utf8'));
          assert.ok(init.stdout.includes(`Installing ${source} v${providerVersion}`), init.stdout);
          assert.match(init.stdout, new RegExp(`Installed ${source} v${providerVersion.replaceAll('.', '\\.')} \\((self-)?signed, key ID ${key}\\)`));
          for (const path of ['/.well-known/terraform.json', '/v1/providers/tollgate/tollgate/versions',
            `/v1/providers/tollgate/tollgate/${providerVersion}/download/linux/amd64`,
            `/files/terraform-provider-tollgate_${providerVersion}_SHA256SUMS.sig`]) {
            assert.ok(registry.requests.includes(path), `the registry was asked for ${path}`);
          }
          // The lock file pins every package of the signed SHA256SUMS (zh:), so the other platform verifies later too.
          const lock = readFileSync(join(tf.dir, '.terraform.lock.hcl'), 'utf8');
          assert.match(lock, new RegExp(`provider "${source}"`));
          const sums = readFileSync(join(releaseDir, `terraform-provider-tollgate_${providerVersion}_SHA256SUMS`), 'utf8');
          for (const pkg of releasePackages(releaseDir)) {
            const sum = sums.split('\n').find((l) => l.endsWith(`  ${pkg.filename}`))!.split(/\s+/)[0];
            assert.ok(lock.includes(`"zh:${sum}"`), `the lock file records ${pkg.filename}`);
          }

          const apply = await tf.ok('apply', '-auto-approve');
          assert.match(apply.stdout, /Apply complete! Resources: 2 added, 0 changed, 0 destroyed/);
          const api = t.client(user.pat);
          const servers = await api.call('GET /api/mcp');
          assert.ok(servers.ok);
          assert.deepEqual(servers.body.servers.map((s) => s.name), ['from-registry']);
          assert.equal((await tf.run('plan', '-detailed-exitcode')).code, 0);
          await tf.ok('destroy', '-auto-approve');
          const left = await api.call('GET /api/mcp');
          assert.ok(left.ok);
          assert.equal(left.body.servers.length, 0);
        } finally {
          tf.close();
        }
      });

      test(`${name} refuses the registry when it does not trust its CA`, async () => {
        const { SSL_CERT_FILE: _untrusted, ...env } = registry.env;
        const { tf } = await workdir(name, env);
        try {
          const init = await tf.run('init');
          assert.notEqual(init.code, 0);
          assert.match(init.stderr, /certificate\s+signed\s+by\s+unknown\s+authority/);
        } finally {
          tf.close();
        }
      });

      test(`${name} refuses a package whose bytes differ from the signed SHA256SUMS`, async () => {
        const { tf } = await workdir(name, tampered.env);
        try {
          const init = await tf.run('init');
          assert.notEqual(init.code, 0);
          assert.match(init.stderr, /archive\s+has\s+incorrect\s+checksum/);
          assert.doesNotMatch(init.stdout, /successfully initialized/);
        } finally {
          tf.close();
        }
      });

      test(`${name} refuses SHA256SUMS whose signature does not verify`, async () => {
        const { tf } = await workdir(name, forged.env);
        try {
          const init = await tf.run('init');
          assert.notEqual(init.code, 0);
          // The CLIs wrap their messages at 78 columns.
          assert.match(init.stderr, /error\s+checking\s+signature:\s+openpgp:\s+invalid\s+signature/);
          assert.doesNotMatch(init.stdout, /successfully initialized/);
        } finally {
          tf.close();
        }
      });
    });
  }
});
