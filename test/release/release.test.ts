// `node scripts/release.mjs --out DIR --version V` builds a release of another version than the tree's, without
// editing the tree, and everything in it checks out the way its users check it: sha256sum, gpg against the shipped
// key, the zip terraform unpacks, the executable terraform starts (with no node anywhere on its PATH), helm's charts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { inflateRawSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
// @ts-expect-error a plain .mjs script: no types
import { releaseFiles } from '../../scripts/release.mjs';
// @ts-expect-error a plain .mjs script: no types
import { timeHandshake } from '../../scripts/release/handshake.mjs';
import { createPluginIdentity } from '../../provider/src/protocol/certificate.ts';
import { magicCookieValue } from '../../provider/src/protocol/handshake.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const version = '7.6.5';
const provider = `terraform-provider-tollgate_${version}`;
let scratch: string;
let out: string;
const treeFiles = ['package.json', 'provider/package.json', 'charts/tollgate/Chart.yaml', 'charts/tollgate-crds/Chart.yaml', 'docs/openapi.json'];
const treeBefore = new Map<string, string>();

before(() => {
  scratch = mkdtempSync(join(tmpdir(), 'tollgate-release-test-'));
  out = join(scratch, 'release');
  for (const f of treeFiles) treeBefore.set(f, readFileSync(join(root, f), 'utf8'));
  const r = spawnSync(process.execPath, [join(root, 'scripts/release.mjs'), '--out', out, '--version', version], { encoding: 'utf8', timeout: 540_000 });
  assert.equal(r.status, 0, `release failed:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /\[7\/7\]/, 'the release reports its steps');
  assert.match(r.stdout, /throwaway key/, 'a release without $TOLLGATE_RELEASE_GPG_HOME says it signed with a throwaway key');
});
after(() => rmSync(scratch, { recursive: true, force: true }));

const run = (command: string, args: string[], cwd = out) => spawnSync(command, args, { cwd, encoding: 'utf8' });

test('the release holds exactly the files of the layout, and the tree is not edited', () => {
  assert.deepEqual(readdirSync(out).sort(), releaseFiles(version));
  for (const [f, text] of treeBefore) assert.equal(readFileSync(join(root, f), 'utf8'), text, `--version edited ${f}`);
});

test('SHA256SUMS verify with sha256sum, and cover every file', () => {
  for (const sums of ['SHA256SUMS', `${provider}_SHA256SUMS`]) {
    const r = run('sha256sum', ['--strict', '-c', sums]);
    assert.equal(r.status, 0, `${sums}:\n${r.stdout}${r.stderr}`);
  }
  const listed = readFileSync(join(out, 'SHA256SUMS'), 'utf8').trim().split('\n').map((l) => l.split('  ')[1]).sort();
  assert.deepEqual(listed, releaseFiles(version).filter((f: string) => f !== 'SHA256SUMS'));
  const providerListed = readFileSync(join(out, `${provider}_SHA256SUMS`), 'utf8').trim().split('\n').map((l) => l.split('  ')[1]).sort();
  assert.deepEqual(providerListed, [`${provider}_linux_amd64.zip`, `${provider}_linux_arm64.zip`, `${provider}_manifest.json`]);
});

test('the signature verifies with gpg against signing-key.asc, and fails on altered sums', () => {
  const home = join(scratch, 'gnupg');
  mkdirSync(home, { mode: 0o700 });
  try {
    const gpg = (...args: string[]) => spawnSync('gpg', ['--batch', '--homedir', home, ...args], { cwd: out, encoding: 'utf8' });
    assert.equal(gpg('--import', 'signing-key.asc').status, 0);
    const good = gpg('--verify', `${provider}_SHA256SUMS.sig`, `${provider}_SHA256SUMS`);
    assert.equal(good.status, 0, good.stderr);
    assert.match(good.stderr, /Good signature/);
    const altered = join(scratch, 'altered-sums');
    writeFileSync(altered, readFileSync(join(out, `${provider}_SHA256SUMS`), 'utf8').replace(/^[0-9a-f]/, (c) => (c === '0' ? '1' : '0')));
    assert.notEqual(gpg('--verify', `${provider}_SHA256SUMS.sig`, altered).status, 0, 'a signature that verifies anything proves nothing');
  } finally {
    spawnSync('gpgconf', ['--homedir', home, '--kill', 'all']);
  }
});

test('the registry manifest states plugin protocol 6', () => {
  assert.deepEqual(JSON.parse(readFileSync(join(out, `${provider}_manifest.json`), 'utf8')), { version: 1, metadata: { protocol_versions: ['6.0'] } });
});

interface ZipEntry { name: string; mode: number; dosDate: number; data: Buffer }

/** Reads a zip's central directory (no zip64, deflate or stored): what any unzip, terraform's included, sees. */
function readZip(file: string): ZipEntry[] {
  const zip = readFileSync(file);
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(end >= 0, `${file}: no end of central directory`);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    assert.equal(zip.readUInt32LE(at), 0x02014b50);
    const method = zip.readUInt16LE(at + 10);
    const dosDate = zip.readUInt16LE(at + 14);
    const packedSize = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const mode = zip.readUInt32LE(at + 38) >>> 16;
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const packed = zip.subarray(dataAt, dataAt + packedSize);
    const data = method === 8 ? inflateRawSync(packed) : packed;
    assert.equal(data.length, size, `${name}: size`);
    entries.push({ name, mode, dosDate, data });
    at += 46 + nameLength + extra + comment;
  }
  return entries;
}

function unpack(platform: string): string {
  const entries = readZip(join(out, `${provider}_${platform}.zip`));
  assert.deepEqual(entries.map((e) => e.name), [`terraform-provider-tollgate_v${version}`], `${platform}: one executable named as terraform expects`);
  const exe = entries[0]!;
  assert.equal(exe.mode & 0o777, 0o755, 'executable for everyone');
  assert.equal(exe.mode & 0o170000, 0o100000, 'a regular file');
  assert.equal(exe.dosDate, (1 << 5) | 1, 'the fixed timestamp (1980-01-01) that makes the zip depend on its content only');
  const dir = join(scratch, platform);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, exe.name);
  writeFileSync(path, exe.data);
  chmodSync(path, exe.mode & 0o777);
  return path;
}

/** e_machine of a 64-bit little-endian ELF executable. */
function elfMachine(file: string): number {
  const head = readFileSync(file).subarray(0, 20);
  assert.deepEqual([...head.subarray(0, 4)], [0x7f, 0x45, 0x4c, 0x46], 'an ELF file');
  assert.equal(head[4], 2, '64-bit');
  assert.equal(head[5], 1, 'little-endian');
  assert.equal(head.readUInt16LE(16), 2, 'an executable');
  return head.readUInt16LE(18);
}

test('the linux_amd64 executable speaks the plugin handshake with no node on its PATH', async (t) => {
  const exe = unpack('linux_amd64');
  assert.equal(elfMachine(exe), 62, 'x86-64');
  const emptyBin = mkdtempSync(join(scratch, 'path-'));
  const env = {
    PATH: emptyBin,
    TF_PLUGIN_MAGIC_COOKIE: magicCookieValue,
    PLUGIN_PROTOCOL_VERSIONS: '6',
    PLUGIN_MIN_PORT: '10000',
    PLUGIN_MAX_PORT: '25000',
    PLUGIN_CLIENT_CERT: createPluginIdentity().certificatePem,
  };
  const { line, ms } = await timeHandshake(exe, [], env);
  assert.match(line, /^1\|6\|tcp\|127\.0\.0\.1:\d+\|grpc\|[A-Za-z0-9+/]+$/);
  t.diagnostic(`single executable: handshake after ${Math.round(ms)} ms`);
  const direct = spawnSync(exe, [], { env: { PATH: emptyBin }, encoding: 'utf8' });
  assert.equal(direct.status, 1, 'started without terraform, it refuses');
  assert.match(direct.stderr, /This binary is a plugin/);
});

test('the linux_arm64 executable is an aarch64 ELF with the provider injected', () => {
  const exe = unpack('linux_arm64');
  assert.equal(elfMachine(exe), 183, 'aarch64');
  const binary = readFileSync(exe);
  assert.ok(binary.includes('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1'), 'the SEA fuse is flipped: a blob is injected');
  assert.ok(binary.includes('terraform-provider-tollgate'), 'the blob is the provider bundle');
});

test('the charts, the OpenAPI document and the changelog are those of the version', () => {
  for (const chart of ['tollgate', 'tollgate-crds']) {
    const r = run('tar', ['-xzOf', `${chart}-${version}.tgz`, `${chart}/Chart.yaml`]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^version: ${version}$`, 'm'));
    assert.match(r.stdout, new RegExp(`^appVersion: "?${version}"?$`, 'm'));
  }
  assert.equal(JSON.parse(readFileSync(join(out, 'openapi.json'), 'utf8')).info.version, version);
  assert.equal(readFileSync(join(out, 'CHANGELOG.md'), 'utf8'), readFileSync(join(root, 'CHANGELOG.md'), 'utf8'));
  assert.match(readFileSync(join(out, 'signing-key.asc'), 'utf8'), /^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
});
