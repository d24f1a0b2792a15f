// Password check for the dashboard sign-in. Unknown e-mail, user without a password and wrong password all look the
// same to the caller, and take about the same time (a dummy scrypt runs when there is no hash to check).
import { hashPassword, verifyPassword } from '../crypto/password.ts';
import type { Queryable } from '../db/db.ts';
import { normalizeEmail } from './users.ts';

export interface LoginUser {
  id: string;
  email: string;
  name: string | null;
  totpEnabled: boolean;
}

let dummyHash: Promise<string> | undefined;

export async function checkPassword(q: Queryable, email: string, password: string): Promise<LoginUser | undefined> {
  const rows = await q.query<{ id: string; email: string; name: string | null; password_hash: string | null; totp_enabled: boolean }>(
    'SELECT id, email, name, password_hash, totp_enabled FROM users WHERE email = $1',
    [normalizeEmail(email)],
  );
  const u = rows[0];
  const hash = u?.password_hash ?? (await (dummyHash ??= hashPassword('tollgate-dummy-password')));
  const ok = await verifyPassword(password, hash);
  if (!u || !u.password_hash || !ok) return undefined;
  return { id: u.id, email: u.email, name: u.name, totpEnabled: u.totp_enabled };
}
