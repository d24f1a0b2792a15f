import { hash, randomBytes } from 'node:crypto';

export const PAT_PREFIX = 'svc_pat_';
export const CLIENT_KEY_PREFIX = 'tgk_';

/** One-shot crypto.hash: same digest as createHash().update().digest(), without the Hash object (hot path). */
export function sha256Hex(s: string): string {
  return hash('sha256', s, 'hex');
}

export function newPat(): string {
  return PAT_PREFIX + randomBytes(32).toString('base64url');
}

export function newClientKey(): string {
  return CLIENT_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** Spec: first 6 characters of the key, three dots, last 4 characters of its SHA-256 hash. */
export function maskKey(prefix6: string, hashHex: string): string {
  return `${prefix6}...${hashHex.slice(-4)}`;
}
