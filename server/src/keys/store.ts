// Client keys in `credentials` (is_pat = false). Only the SHA-256 of a key and its first 6 characters are stored;
// the plaintext exists once, in the create response. Every lookup is scoped to the caller's consumer.
import { randomUUID } from 'node:crypto';
import { newClientKey, sha256Hex } from '../crypto/tokens.ts';
import type { Queryable } from '../db/db.ts';
import { isUuid } from '../proxies/ownership.ts';
import type { KeyRow } from './view.ts';

const COLUMNS = 'id, key_prefix, key_hash, tags, is_pat, created_at';

/** The caller's client keys, newest first; the PAT is never listed. */
export function listClientKeys(q: Queryable, consumerId: string): Promise<KeyRow[]> {
  return q.query<KeyRow>(`SELECT ${COLUMNS} FROM credentials WHERE consumer_id = $1 AND NOT is_pat ORDER BY created_at DESC, id`, [consumerId]);
}

/**
 * One of the caller's credentials (the PAT included, so callers can refuse it). With `lock`, the row is locked for
 * the rest of the transaction.
 */
export async function findOwnCredential(q: Queryable, consumerId: string, id: string, lock: boolean): Promise<KeyRow | undefined> {
  if (!isUuid(id)) return undefined;
  const rows = await q.query<KeyRow>(`SELECT ${COLUMNS} FROM credentials WHERE id = $1 AND consumer_id = $2${lock ? ' FOR UPDATE' : ''}`, [id, consumerId]);
  return rows[0];
}

export async function insertClientKey(q: Queryable, consumerId: string, tags: string[], nowS: number): Promise<{ id: string; key: string }> {
  const id = randomUUID();
  const key = newClientKey();
  await q.query(
    'INSERT INTO credentials (id, consumer_id, key_hash, key_prefix, tags, is_pat, created_at) VALUES ($1, $2, $3, $4, $5, false, $6)',
    [id, consumerId, sha256Hex(key), key.slice(0, 6), tags, nowS],
  );
  return { id, key };
}

export async function replaceKeyTags(q: Queryable, id: string, tags: string[]): Promise<void> {
  await q.query('UPDATE credentials SET tags = $2 WHERE id = $1 AND NOT is_pat', [id, tags]);
}

export async function deleteClientKey(q: Queryable, id: string): Promise<void> {
  await q.query('DELETE FROM credentials WHERE id = $1 AND NOT is_pat', [id]);
}
