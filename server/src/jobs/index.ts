// Periodic background work (DNS re-pinning, retention purges, expired sessions). Each job is a small module; this
// file only schedules them. Returns a function that stops them all.
import type { Role } from '../config/config.ts';
import type { Services } from '../services.ts';
import type { Job } from './job.ts';
import { repinJob } from './repin.ts';
import { auditRetentionJob } from './audit-retention.ts';
import { llmLogPurgeJob } from './llm-log-purge.ts';
import { sessionPurgeJob } from './session-purge.ts';

/** The jobs, one line each. */
const JOBS: Job[] = [
  repinJob,
  auditRetentionJob,
  llmLogPurgeJob,
  sessionPurgeJob,
];

export function startBackgroundJobs(s: Services, role: Role): () => Promise<void> {
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<void>>();
  for (const job of JOBS) {
    if (!job.roles.includes(role) && role !== 'all') continue;
    const t = setInterval(() => {
      const p = job.run(s).catch((err: unknown) => s.log.warn('background job failed', { job: job.name, err }));
      running.add(p);
      void p.finally(() => running.delete(p));
    }, job.intervalMs(s));
    t.unref();
    timers.push(t);
  }
  return async () => {
    for (const t of timers) clearInterval(t);
    await Promise.allSettled([...running]);
  };
}
