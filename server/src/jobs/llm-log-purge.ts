// Enforces the 7-day retention of LLM conversation logs (reads already ignore older rows; this frees the space).
import { purgeExpiredLogs } from '../conversation-logs/store.ts';
import type { Job } from './job.ts';

export const llmLogPurgeJob: Job = {
  name: 'llm-log-purge',
  intervalMs: () => 15 * 60_000,
  roles: ['api'],
  async run(s) {
    const n = await purgeExpiredLogs(s.db, s.clock.nowMs());
    if (n) s.log.info('purged expired LLM conversation logs', { deleted: n });
  },
};
