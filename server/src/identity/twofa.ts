// Second factor (TOTP) state of a user. The secret is sealed with the master key (AAD `totp:<userId>`, so an
// envelope copied to another user's row does not open). A pending secret (set up, not yet verified) lives in the
// same column with totp_enabled = false; verifying it flips the flag.
import type { SecretBox } from '../crypto/secrets.ts';
import type { Queryable } from '../db/db.ts';
import { base32Decode, base32Encode, matchTotp, newTotpSecret, otpauthUri } from './totp.ts';

export const TOTP_ISSUER = 'Tollgate';

export interface TwofaState {
  email: string;
  enabled: boolean;
  secretEnc: string | null;
}

const aad = (userId: string) => `totp:${userId}`;

export async function twofaState(q: Queryable, userId: string): Promise<TwofaState | undefined> {
  const rows = await q.query<{ email: string; totp_enabled: boolean; totp_secret_enc: string | null }>(
    'SELECT email, totp_enabled, totp_secret_enc FROM users WHERE id = $1', [userId]);
  const r = rows[0];
  return r ? { email: r.email, enabled: r.totp_enabled, secretEnc: r.totp_secret_enc } : undefined;
}

/** Stores a fresh pending secret (replacing an earlier unverified one) and returns what the authenticator app needs. */
export async function beginSetup(q: Queryable, secrets: SecretBox, userId: string, email: string): Promise<{ secret: string; otpauthUri: string }> {
  const secret = base32Encode(newTotpSecret());
  await q.query('UPDATE users SET totp_secret_enc = $2, totp_last_step = NULL WHERE id = $1 AND NOT totp_enabled',
    [userId, secrets.seal(secret, aad(userId))]);
  return { secret, otpauthUri: otpauthUri({ secretBase32: secret, account: email, issuer: TOTP_ISSUER }) };
}

/**
 * True when `code` is valid now for the user's secret and its time step is later than the last accepted one. The
 * step is recorded with a conditional UPDATE, so two concurrent requests cannot both spend the same code.
 */
export interface CodeAttempt {
  userId: string;
  secretEnc: string;
  code: string;
  nowS: number;
}

export async function acceptCode(q: Queryable, secrets: SecretBox, { userId, secretEnc, code, nowS }: CodeAttempt): Promise<boolean> {
  const key = base32Decode(secrets.open(secretEnc, aad(userId)));
  const step = matchTotp(key, code, nowS);
  if (step === undefined) return false;
  const rows = await q.query('UPDATE users SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING id',
    [userId, step]);
  return rows.length > 0;
}

export async function enableTwofa(q: Queryable, userId: string): Promise<void> {
  await q.query('UPDATE users SET totp_enabled = true WHERE id = $1', [userId]);
}

export async function disableTwofa(q: Queryable, userId: string): Promise<void> {
  await q.query('UPDATE users SET totp_enabled = false, totp_secret_enc = NULL, totp_last_step = NULL WHERE id = $1', [userId]);
}
