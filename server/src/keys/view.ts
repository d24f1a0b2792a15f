// The key record as the listing returns it (spec "Client API key"): never the plaintext, never the hash.
import type { keyRecordSchema } from '@tollgate/contract';
import type { z } from 'zod';
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

/** The contract's listing record: first 6 characters of the key, `...`, last 4 hex digits of its SHA-256; `ttl: null`. */
export type KeyRecord = z.output<typeof keyRecordSchema>;

export function toKeyRecord(row: KeyRow): KeyRecord {
  return { id: row.id, key: maskKey(row.key_prefix, row.key_hash), tags: row.tags, created_at: Number(row.created_at), ttl: null };
}
