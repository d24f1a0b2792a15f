// Deletes expired dashboard sessions. Login already clears the signing-in user's dead sessions; this catches the
// users who never come back, so the table does not grow with every sign-in ever made.
import { deleteExpiredSessions } from '../identity/sessions.ts';
import { unixNow, type Services } from '../services.ts';
import type { Job } from './job.ts';

export async function purgeExpiredSessions(s: Services): Promise<number> {
  const n = await deleteExpiredSessions(s.db, unixNow(s.clock));
  if (n) s.log.info('session purge: deleted expired sessions', { deleted: n });
  return n;
}

export const sessionPurgeJob: Job = {
  name: 'session-purge',
  intervalMs: () => 60 * 60 * 1000,
  roles: ['api'],
  run: async (s) => { await purgeExpiredSessions(s); },
};
