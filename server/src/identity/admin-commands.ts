// The operations of the admin CLI (docs/admin-cli.md), as data: the CLI parses argv into an AdminCommand and either
// runs it here against its own database connection or sends it to the running server's loopback admin endpoint,
// which runs it here too. Either way a change the gateway must see is announced after commit (configChanged).
import { z } from 'zod';
import type { Db } from '../db/db.ts';
import type { Services } from '../services.ts';
import { unixNow } from '../services.ts';
import { editConsumerTags, InvalidTag } from './consumer-tags.ts';
import { hashPassword } from '../crypto/password.ts';
import { createUser, findUserByEmail, InvalidEmail, issuePat, setConsumerTags, UserExists } from './users.ts';

const email = z.string().min(1).max(320).describe('E-mail address of the user');

export const adminCommandSchema = z.discriminatedUnion('op', [
  z.object({
    op: z.literal('user.create'),
    email,
    name: z.string().min(1).max(200).optional().describe('Display name'),
    password: z.string().min(1).max(1024).optional().describe('Dashboard password (scrypt-hashed); without it the user cannot sign in to the dashboard'),
  }),
  z.object({
    op: z.literal('user.tags'),
    email,
    add: z.array(z.string()).max(100).default([]).describe('Tags to add (a quota tag replaces the earlier value of the same quota)'),
    remove: z.array(z.string()).max(100).default([]).describe('Tags to remove'),
  }),
  z.object({ op: z.literal('token.issue'), email }),
  z.object({
    op: z.literal('user.password'),
    email,
    password: z.string().min(1).max(1024).describe('New dashboard password (scrypt-hashed); the user\'s sessions end'),
  }),
]);

export type AdminCommand = z.infer<typeof adminCommandSchema>;

/** A failure the operator caused (unknown user, duplicate e-mail, bad tag): printed as is, exit code 1. */
export class AdminCommandError extends Error {}

export type AdminServices = Pick<Services, 'db' | 'clock' | 'configChanged'>;

async function requireUser(db: Db, emailAddr: string) {
  const u = await findUserByEmail(db, emailAddr);
  if (!u) throw new AdminCommandError(`no user with email ${emailAddr}`);
  return u;
}

async function userCreate(s: AdminServices, cmd: Extract<AdminCommand, { op: 'user.create' }>): Promise<string[]> {
  try {
    const { userId } = await s.db.tx((q) => createUser(q, { email: cmd.email, name: cmd.name, password: cmd.password }, unixNow(s.clock)));
    return [userId];
  } catch (err) {
    if (err instanceof UserExists || err instanceof InvalidEmail) throw new AdminCommandError(err.message);
    throw err;
  }
}

async function userTags(s: AdminServices, cmd: Extract<AdminCommand, { op: 'user.tags' }>): Promise<string[]> {
  const u = await requireUser(s.db, cmd.email);
  const out = await s.db.tx(async (q) => {
    // Re-read inside the transaction (row lock on PostgreSQL) so two concurrent edits do not lose each other's tags.
    const [row] = await q.query<{ tags: string[] }>('SELECT tags FROM consumers WHERE id = $1 FOR UPDATE', [u.consumer_id]);
    let next: string[];
    try {
      next = editConsumerTags(row?.tags ?? [], cmd.add, cmd.remove);
    } catch (err) {
      if (err instanceof InvalidTag) throw new AdminCommandError(err.message);
      throw err;
    }
    return { version: await setConsumerTags(q, u.consumer_id, next), tags: next };
  });
  await s.configChanged(out.version);
  return out.tags;
}

async function tokenIssue(s: AdminServices, cmd: Extract<AdminCommand, { op: 'token.issue' }>): Promise<string[]> {
  const u = await requireUser(s.db, cmd.email);
  const { token, configVersion } = await s.db.tx((q) => issuePat(q, u.consumer_id, unixNow(s.clock)));
  await s.configChanged(configVersion);
  return [token];
}

async function userPassword(s: AdminServices, cmd: Extract<AdminCommand, { op: 'user.password' }>): Promise<string[]> {
  const u = await requireUser(s.db, cmd.email);
  const hash = await hashPassword(cmd.password);
  // A reset also signs the user out everywhere: whoever knew the old password keeps no session.
  await s.db.tx(async (q) => {
    await q.query('UPDATE users SET password_hash = $1 WHERE id = $2', [hash, u.id]);
    await q.query('DELETE FROM sessions WHERE user_id = $1', [u.id]);
  });
  return [];
}

/** Runs one command; returns the lines to print on stdout. */
export async function runAdminCommand(s: AdminServices, cmd: AdminCommand): Promise<string[]> {
  switch (cmd.op) {
    case 'user.create': return userCreate(s, cmd);
    case 'user.tags': return userTags(s, cmd);
    case 'token.issue': return tokenIssue(s, cmd);
    case 'user.password': return userPassword(s, cmd);
  }
}
