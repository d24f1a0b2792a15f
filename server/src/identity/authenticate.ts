// Resolves the caller of a management request. Spec order: a Bearer header wins and cookies are then ignored even
// if invalid; a Bearer must be a PAT (client keys are never valid on /api/*). Every lookup goes to the database, so
// a rotated PAT or a logged-out session fails on the very next request on every replica.
import { sha256Hex } from '../crypto/tokens.ts';
import type { Queryable } from '../db/db.ts';
import { HttpError, Msg } from '../http/errors.ts';
import type { AuthContext } from '../http/auth-context.ts';
import { MAX_SESSION_COOKIES } from './session-cookie.ts';

interface IdentityRow {
  user_id: string;
  email: string;
  consumer_id: string;
  tags: string[];
  [k: string]: unknown;
}

export async function authenticatePat(q: Queryable, token: string): Promise<AuthContext> {
  const rows = await q.query<IdentityRow & { credential_id: string }>(
    `SELECT c.id AS credential_id, u.id AS user_id, u.email, co.id AS consumer_id, co.tags
       FROM credentials c JOIN consumers co ON co.id = c.consumer_id JOIN users u ON u.id = co.user_id
      WHERE c.key_hash = $1 AND c.is_pat`,
    [sha256Hex(token)],
  );
  const r = rows[0];
  if (!r) throw new HttpError(401, Msg.invalidPat);
  return { userId: r.user_id, email: r.email, consumerId: r.consumer_id, consumerTags: r.tags, channel: 'pat', credentialId: r.credential_id, mfaPassed: true };
}

export async function authenticateSession(q: Queryable, sessionToken: string, nowS: number): Promise<AuthContext | undefined> {
  const idHash = sha256Hex(sessionToken);
  const rows = await q.query<IdentityRow & { mfa_passed: boolean; totp_enabled: boolean }>(
    `SELECT u.id AS user_id, u.email, co.id AS consumer_id, co.tags, s.mfa_passed, u.totp_enabled
       FROM sessions s JOIN users u ON u.id = s.user_id JOIN consumers co ON co.user_id = u.id
      WHERE s.id_hash = $1 AND s.expires_at > $2`,
    [idHash, nowS],
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    userId: r.user_id, email: r.email, consumerId: r.consumer_id, consumerTags: r.tags, channel: 'session',
    sessionIdHash: idHash, mfaPassed: r.mfa_passed || !r.totp_enabled,
  };
}

/**
 * The session named by a request's session cookies (session-cookie.ts sessionTokens). Another host of the site can
 * plant a cookie of the same name, and a browser sends it first when its Path is longer, so the first value is not
 * trusted: each is looked up and the request has a session only when exactly one of them is live. A planted value
 * that names no session does not lock the user out; a planted live session (the attacker's own, to have the victim
 * type secrets into the attacker's account) next to the user's is ambiguous and gets no session at all.
 */
export async function authenticateSessionTokens(q: Queryable, tokens: string[], nowS: number): Promise<AuthContext | undefined> {
  if (tokens.length > MAX_SESSION_COOKIES) return undefined;
  let found: AuthContext | undefined;
  for (const token of tokens) {
    const auth = await authenticateSession(q, token, nowS);
    if (!auth) continue;
    if (found) return undefined;
    found = auth;
  }
  return found;
}
