// The key record as the listing returns it (spec "Client API key"): never the plaintext, never the hash.
import { maskKey } from '../crypto/tokens.ts';

export interface KeyRow {
  [k: string]: unknown;
  id: string;
  key_prefix: string;
  key_hash: string;
  tags: string[];
  is_pat: boolean;
  created_at: number;
}

export interface KeyRecord {
  id: string;
  /** First 6 characters of the key, `...`, last 4 hex digits of its SHA-256. */
  key: string;
  tags: string[];
  created_at: number;
  /** Keys do not expire (the spec's record has `ttl: null`). */
  ttl: null;
}

export function toKeyRecord(row: KeyRow): KeyRecord {
  return { id: row.id, key: maskKey(row.key_prefix, row.key_hash), tags: row.tags, created_at: Number(row.created_at), ttl: null };
}
