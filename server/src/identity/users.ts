// Users, their gateway consumer, and the PAT. Shared by the admin CLI, bootstrap and the session endpoints.
import { randomUUID } from 'node:crypto';
import { hashPassword } from '../crypto/password.ts';
import { newPat, sha256Hex } from '../crypto/tokens.ts';
import type { Queryable } from '../db/db.ts';
import { bumpConfigVersion } from '../snapshot/changes.ts';

export const PAT_TAG = 'svc:personal:token';
export const CONSUMER_USER_TAG = 'private:permissions:user';

export interface NewUser {
  email: string;
  name?: string | null;
  password?: string | null;
}

export class UserExists extends Error {}
export class InvalidEmail extends Error {}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function isEmail(email: string): boolean {
  return /^[^\s@]+@[^\s@]+$/.test(email) && email.length <= 320;
}

function isUniqueViolation(err: unknown): boolean {
  return !!err && typeof err === 'object' && (err as { code?: unknown }).code === '23505';
}

export async function createUser(q: Queryable, input: NewUser, nowS: number): Promise<{ userId: string; consumerId: string }> {
  const email = normalizeEmail(input.email);
  if (!isEmail(email)) throw new InvalidEmail(`"${input.email}" is not an email address`);
  const existing = await q.query('SELECT 1 FROM users WHERE email = $1', [email]);
  if (existing.length) throw new UserExists(`a user with email ${email} already exists`);
  const userId = randomUUID();
  const consumerId = randomUUID();
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  try {
    await q.query('INSERT INTO users (id, email, name, password_hash, created_at) VALUES ($1, $2, $3, $4, $5)',
      [userId, email, input.name ?? null, passwordHash, nowS]);
  } catch (err) {
    // Two creates of the same email racing: the unique index decides.
    if (isUniqueViolation(err)) throw new UserExists(`a user with email ${email} already exists`);
    throw err;
  }
  await q.query('INSERT INTO consumers (id, user_id, username, tags) VALUES ($1, $2, $3, $4)',
    [consumerId, userId, `user-${userId}`, [CONSUMER_USER_TAG]]);
  return { userId, consumerId };
}

export async function findUserByEmail(q: Queryable, email: string) {
  const rows = await q.query<{ id: string; email: string; consumer_id: string; tags: string[] }>(
    'SELECT u.id, u.email, co.id AS consumer_id, co.tags FROM users u JOIN consumers co ON co.user_id = u.id WHERE u.email = $1',
    [normalizeEmail(email)],
  );
  return rows[0];
}

export interface Profile {
  name: string | null;
  email: string;
  consumerId: string | null;
  consumerUsername: string | null;
  tags: string[];
}

/** The spec's profile record. The consumer is created with the user, but the columns stay nullable per the spec. */
export async function getProfile(q: Queryable, userId: string): Promise<Profile | undefined> {
  const rows = await q.query<{ name: string | null; email: string; consumer_id: string | null; username: string | null; tags: string[] | null }>(
    `SELECT u.name, u.email, co.id AS consumer_id, co.username, co.tags
       FROM users u LEFT JOIN consumers co ON co.user_id = u.id WHERE u.id = $1`,
    [userId],
  );
  const r = rows[0];
  if (!r) return undefined;
  return { name: r.name, email: r.email, consumerId: r.consumer_id, consumerUsername: r.username, tags: r.tags ?? [] };
}

export async function hasPat(q: Queryable, consumerId: string): Promise<boolean> {
  const rows = await q.query('SELECT 1 FROM credentials WHERE consumer_id = $1 AND is_pat', [consumerId]);
  return rows.length > 0;
}

/**
 * Issues the user's PAT, replacing any previous one in the same transaction (rotation: the old token fails at once).
 * Returns the plaintext, which is never stored.
 */
export async function issuePat(q: Queryable, consumerId: string, nowS: number): Promise<{ token: string; rotated: boolean; configVersion: number }> {
  const token = newPat();
  const removed = await q.query('DELETE FROM credentials WHERE consumer_id = $1 AND is_pat RETURNING id', [consumerId]);
  await q.query(
    'INSERT INTO credentials (id, consumer_id, key_hash, key_prefix, tags, is_pat, created_at) VALUES ($1, $2, $3, $4, $5, true, $6)',
    [randomUUID(), consumerId, sha256Hex(token), token.slice(0, 6), [PAT_TAG], nowS],
  );
  // The gateway holds credentials in memory to answer 401 to a PAT on a proxy URL; keep it current.
  const configVersion = await bumpConfigVersion(q);
  return { token, rotated: removed.length > 0, configVersion };
}

export async function setConsumerTags(q: Queryable, consumerId: string, tags: string[]): Promise<number> {
  await q.query('UPDATE consumers SET tags = $2 WHERE id = $1', [consumerId, tags]);
  return bumpConfigVersion(q);
}
