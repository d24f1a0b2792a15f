// Secrets at rest (docs/security.md): AES-256-GCM envelopes bound to their row by associated data, a fresh IV per
// seal, tampering detected, and a wrong master key failing loudly instead of decrypting garbage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { turnCounter } from '@tollgate/testkit/turn-counter.ts';
import { SecretBox } from './secrets.ts';
import { hashPassword, verifyPassword } from './password.ts';

const box = new SecretBox(randomBytes(32));

test('an envelope opens with its own associated data only: copied to another row, it does not open', () => {
  const env = box.seal('sk-provider-key', 'llm:11111111-1111-4111-8111-111111111111');
  assert.match(env, /^v1\.[\w-]{8}\.[\w-]+\.[\w-]+\.[\w-]+$/);
  assert.ok(!env.includes('sk-provider-key'));
  assert.equal(box.open(env, 'llm:11111111-1111-4111-8111-111111111111'), 'sk-provider-key');
  assert.throws(() => box.open(env, 'llm:22222222-2222-4222-8222-222222222222'), /unable to authenticate data/);
  assert.throws(() => box.open(env, 'mcp:11111111-1111-4111-8111-111111111111'), /unable to authenticate data/);
  assert.throws(() => box.open(env), /unable to authenticate data/);
});

test('every seal uses a fresh IV: the same secret never gives the same envelope', () => {
  const a = box.seal('same', 'x');
  const b = box.seal('same', 'x');
  assert.notEqual(a, b);
  assert.notEqual(a.split('.')[2], b.split('.')[2]);
});

test('a tampered envelope (ciphertext, tag or IV) does not open', () => {
  const parts = box.seal('secret value', 'row').split('.');
  const flip = (s: string) => {
    const b = Buffer.from(s, 'base64url');
    b[0] = b[0]! ^ 1;
    return b.toString('base64url');
  };
  for (const i of [2, 3, 4]) {
    const bad = parts.map((p, j) => (j === i ? flip(p) : p)).join('.');
    assert.throws(() => box.open(bad, 'row'), i === 2 || i === 4 ? /unable to authenticate data/ : /unable to authenticate data|Invalid authentication tag/);
  }
  assert.throws(() => box.open('v1.x.y', 'row'), /malformed secret envelope/);
});

test('a wrong master key fails loudly, naming both key ids, instead of returning garbage', () => {
  const env = box.seal('secret', 'row');
  const other = new SecretBox(randomBytes(32));
  assert.throws(() => other.open(env, 'row'), new RegExp(`sealed with key ${box.keyId}, not the configured master key ${other.keyId}`));
  assert.throws(() => new SecretBox(randomBytes(16)), /master key must be 32 bytes/);
});

test('passwords are stored as scrypt hashes with a random salt, never as given', async () => {
  const a = await hashPassword('correct horse battery staple');
  const b = await hashPassword('correct horse battery staple');
  assert.match(a, /^scrypt\$16384\$8\$1\$[\w-]+\$[\w-]+$/);
  assert.notEqual(a, b, 'each hash has its own salt');
  assert.ok(!a.includes('correct horse'));
  assert.equal(await verifyPassword('correct horse battery staple', a), true);
  assert.equal(await verifyPassword('correct horse battery stapl', a), false);
  assert.equal(await verifyPassword('x', 'not-a-hash'), false);
});

test('sealBytesInTurns gives seal\'s envelope as bytes, opening to the same text whatever the piece size', async () => {
  // Multi-byte characters and surrogate pairs (emoji) fall on piece boundaries for some of these sizes.
  const text = 'héllo 🌍 wörld, 日本語 '.repeat(997);
  const bytes = Buffer.from(text);
  const sealed = async (data: string | Buffer, aad: string, piece?: number) => (await box.sealBytesInTurns(data, aad, piece)).toString('latin1');
  for (const piece of [1, 2, 3, 7, 64, 1000, 4096, 1 << 20]) {
    assert.equal(box.open(await sealed(text, 'log:1', piece), 'log:1'), text, `string, pieces of ${piece}`);
    assert.deepEqual(box.openBuffer(await sealed(bytes, 'log:1', piece), 'log:1'), bytes, `bytes, pieces of ${piece}`);
  }
  assert.equal(box.open(await sealed('', 'a'), 'a'), '');
  const env = await sealed(text, 'log:1', 100);
  assert.match(env, /^v1\.[\w-]{8}\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
  assert.equal(env.length, box.seal(text, 'log:1').length, 'the same length as seal\'s envelope');
  assert.throws(() => box.open(env, 'log:2'), /unable to authenticate data/);
  const shared = await box.sealBytesInTurns(text, 'x', 100, (n) => Buffer.from(new SharedArrayBuffer(n)));
  assert.ok(shared.buffer instanceof SharedArrayBuffer);
  assert.equal(box.open(shared.toString('latin1'), 'x'), text);
});

test('sealBytesInTurns lets other callbacks run between its pieces', async () => {
  const turns = turnCounter();
  await box.sealBytesInTurns('x'.repeat(10 * 64 * 1024), 'a');
  assert.ok(turns.count >= 9, `${turns.count} turns ran while ten pieces were sealed`);
});
