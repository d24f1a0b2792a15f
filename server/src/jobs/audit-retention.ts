// Deletes audit events older than TOLLGATE_AUDIT_RETENTION_DAYS (default 30), in batches so a large backlog never
// holds one long transaction. Hourly: retention is measured in days, so an hour of slack is immaterial.
import { deleteEventsBefore } from '../audit/queries.ts';
import { unixNow, type Services } from '../services.ts';
import type { Job } from './job.ts';

const BATCH = 5000;
const DAY_S = 86_400;

/** Returns how many events were deleted. */
export async function purgeExpiredAuditEvents(s: Services): Promise<number> {
  const cutoff = unixNow(s.clock) - s.config.auditRetentionDays * DAY_S;
  let total = 0;
  for (;;) {
    const n = await deleteEventsBefore(s.db, cutoff, BATCH);
    total += n;
    if (n < BATCH) break;
  }
  if (total) s.log.info('audit retention: deleted expired events', { deleted: total, retentionDays: s.config.auditRetentionDays });
  return total;
}

export const auditRetentionJob: Job = {
  name: 'audit-retention',
  intervalMs: () => 60 * 60 * 1000,
  roles: ['api'],
  run: async (s) => { await purgeExpiredAuditEvents(s); },
};
