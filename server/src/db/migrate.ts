// Versioned migrations: numbered .sql files in ./migrations, applied in order, each in its own transaction, under an
// advisory lock so that replicas starting together never run one twice.
import { readdirSync, readFileSync } from 'node:fs';
import type { Db } from './db.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
const LOCK_ID = 7_413_911; // arbitrary constant shared by every Tollgate process

export interface Migration {
  version: string;
  sql: string;
}

export function listMigrations(): Migration[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: f.replace(/\.sql$/, ''), sql: readFileSync(new URL(f, MIGRATIONS_DIR), 'utf8') }));
}

export async function migrate(db: Db): Promise<string[]> {
  return db.withLock(LOCK_ID, async (q) => {
    await q.query(`CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at bigint NOT NULL)`);
    const done = new Set((await q.query<{ version: string }>('SELECT version FROM schema_migrations')).map((r) => r.version));
    const applied: string[] = [];
    for (const m of listMigrations()) {
      if (done.has(m.version)) continue;
      await db.tx(async (t) => {
        await t.exec(m.sql);
        await t.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [m.version, Math.floor(Date.now() / 1000)]);
      });
      applied.push(m.version);
    }
    return applied;
  });
}
