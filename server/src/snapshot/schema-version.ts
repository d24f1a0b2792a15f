// The data-plane schema version this build's gateways understand. During a rolling upgrade a newer API migrates the
// database while older gateways still read it; the version (table data_plane_schema, written by the migrations in
// server/src/db/migrations/) lets a gateway refuse a layout it does not know instead of building a wrong snapshot.
import type { Queryable } from '../db/db.ts';

/** Raise together with a migration that sets data_plane_schema.version to the same number. */
export const SNAPSHOT_SCHEMA_VERSION = 3;

export class SnapshotSchemaMismatch extends Error {
  constructor(readonly databaseVersion: number, readonly gatewayVersion: number) {
    const action = databaseVersion > gatewayVersion
      ? "upgrade the gateways to the API's version"
      : "this gateway is newer than the API that migrated the database: upgrade the API first, or roll the gateways back to the API's version";
    super(`data-plane schema mismatch: the database is at data-plane version ${databaseVersion}, this gateway understands version ${gatewayVersion}; ${action}`);
    this.name = 'SnapshotSchemaMismatch';
  }
}

export async function readSnapshotSchemaVersion(q: Queryable): Promise<number> {
  const [row] = await q.query<{ version: number }>('SELECT version FROM data_plane_schema WHERE id = 1');
  return Number(row?.version ?? 0);
}

/** Throws SnapshotSchemaMismatch unless the database holds the layout this gateway reads. */
export async function checkSnapshotSchema(q: Queryable): Promise<void> {
  const v = await readSnapshotSchemaVersion(q);
  if (v !== SNAPSHOT_SCHEMA_VERSION) throw new SnapshotSchemaMismatch(v, SNAPSHOT_SCHEMA_VERSION);
}
