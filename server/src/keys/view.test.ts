import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newClientKey, sha256Hex } from '../crypto/tokens.ts';
import { toKeyRecord } from './view.ts';

test('a listed key is masked: first 6 characters, three dots, last 4 hex digits of its SHA-256', () => {
  const key = newClientKey();
  const hash = sha256Hex(key);
  const rec = toKeyRecord({ id: 'i', key_prefix: key.slice(0, 6), key_hash: hash, tags: ['name:a'], is_pat: false, created_at: 1700000000 });
  assert.equal(rec.key, `${key.slice(0, 6)}...${hash.slice(-4)}`);
  assert.match(rec.key, /^.{6}\.\.\.[0-9a-f]{4}$/);
  assert.ok(!rec.key.includes(key.slice(6, 12)), 'no more of the plaintext than the prefix');
  assert.deepEqual(rec, { id: 'i', key: rec.key, tags: ['name:a'], created_at: 1700000000, ttl: null });
  assert.ok(!('key_hash' in rec) && !('is_pat' in rec));
});
