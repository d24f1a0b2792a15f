// Dashboard sessions. The cookie carries 32 random bytes; the table keeps only their SHA-256, so a database dump
// holds no usable session. Every request looks the session up (identity/authenticate.ts), so logout is immediate on
// every replica.
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../crypto/tokens.ts';
import type { Queryable } from '../db/db.ts';

/** Absolute lifetime of a session; there is no sliding renewal (sign in again after it). */
export const SESSION_TTL_S = 12 * 60 * 60;

export interface NewSession {
  token: string;
  idHash: string;
  expiresAt: number;
}

export async function createSession(q: Queryable, userId: string, mfaPassed: boolean, nowS: number): Promise<NewSession> {
  const token = randomBytes(32).toString('base64url');
  const idHash = sha256Hex(token);
  const expiresAt = nowS + SESSION_TTL_S;
  // Opportunistic clean-up of this user's dead sessions keeps the table from growing without a job.
  await q.query('DELETE FROM sessions WHERE user_id = $1 AND expires_at <= $2', [userId, nowS]);
  await q.query('INSERT INTO sessions (id_hash, user_id, mfa_passed, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
    [idHash, userId, mfaPassed, nowS, expiresAt]);
  return { token, idHash, expiresAt };
}

/** Removes every expired session (the hourly session-purge job); returns how many. */
export async function deleteExpiredSessions(q: Queryable, nowS: number): Promise<number> {
  const rows = await q.query<{ n: number }>('WITH gone AS (DELETE FROM sessions WHERE expires_at <= $1 RETURNING 1) SELECT count(*)::int AS n FROM gone', [nowS]);
  return rows[0]?.n ?? 0;
}

export async function deleteSession(q: Queryable, idHash: string): Promise<void> {
  await q.query('DELETE FROM sessions WHERE id_hash = $1', [idHash]);
}

export async function deleteSessionByToken(q: Queryable, token: string): Promise<void> {
  await deleteSession(q, sha256Hex(token));
}

export async function markSessionMfaPassed(q: Queryable, idHash: string): Promise<void> {
  await q.query('UPDATE sessions SET mfa_passed = true WHERE id_hash = $1', [idHash]);
}

export async function sessionTimes(q: Queryable, idHash: string): Promise<{ createdAt: number; expiresAt: number } | undefined> {
  const rows = await q.query<{ created_at: number; expires_at: number }>('SELECT created_at, expires_at FROM sessions WHERE id_hash = $1', [idHash]);
  const r = rows[0];
  return r ? { createdAt: Number(r.created_at), expiresAt: Number(r.expires_at) } : undefined;
}
