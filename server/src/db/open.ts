import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { Config } from '../config/config.ts';
import type { Db } from './db.ts';
import { migrate } from './migrate.ts';

export interface OpenDbOptions {
  /** Keep PGlite in memory instead of the data dir (tests). */
  inMemory?: boolean;
}

export async function openDb(config: Config, opts: OpenDbOptions = {}): Promise<Db> {
  let db: Db;
  if (config.databaseUrl) {
    const { openPostgres } = await import('./postgres.ts');
    db = await openPostgres(config.databaseUrl, config.dbSchema);
  } else {
    const { openPglite } = await import('./pglite.ts');
    let dir: string | undefined;
    if (!opts.inMemory) {
      mkdirSync(config.dataDir, { recursive: true });
      dir = join(config.dataDir, 'pgdata');
    }
    db = await openPglite(dir, { nice: config.pgliteNice });
  }
  await migrate(db);
  return db;
}
