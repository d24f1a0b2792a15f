// What a background job is; each job module exports one and jobs/index.ts schedules them.
import type { Role } from '../config/config.ts';
import type { Services } from '../services.ts';

export interface Job {
  name: string;
  intervalMs: (s: Services) => number;
  /** Which roles run it (API-side jobs write to the database; one replica running them twice is harmless). */
  roles: Role[];
  run(s: Services): Promise<void>;
}
