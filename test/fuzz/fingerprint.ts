// A fingerprint of everything the management API persists: one md5 per table over all its rows, in one query.
// Audit events are left out (every PAT request, refused ones included, is recorded by design), and so is the
// migrations table. A refused request must leave every other table exactly as it was, config version included.
import type { Queryable } from '../../server/src/db/db.ts';

const SKIP = new Set(['audit_events', 'schema_migrations']);

export interface Fingerprinter {
  (): Promise<Record<string, string>>;
}

export async function fingerprinter(db: Queryable): Promise<Fingerprinter> {
  const tables = (await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`,
  )).map((r) => r.table_name).filter((t) => !SKIP.has(t) && /^[a-z_]+$/.test(t));
  if (tables.length < 10) throw new Error(`fingerprint: only ${tables.length} tables found (${tables.join(', ')})`);
  const sql = tables.map((t) => `SELECT '${t}' AS t, md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) AS h FROM ${t} x`).join(' UNION ALL ');
  return async () => Object.fromEntries((await db.query<{ t: string; h: string }>(sql)).map((r) => [r.t, r.h]));
}

/** The tables whose fingerprint differs. */
export function changedTables(a: Record<string, string>, b: Record<string, string>): string[] {
  return Object.keys({ ...a, ...b }).filter((k) => a[k] !== b[k]);
}
