-- The data-plane schema version: which layout of the tables gateways read (server/src/snapshot/load.ts) the database
-- holds. Gateways compare it with SNAPSHOT_SCHEMA_VERSION (server/src/snapshot/schema-version.ts) before every
-- snapshot, so an older gateway next to a newer API refuses instead of misreading. A migration that changes what
-- load.ts reads raises it in the same file, together with the constant.
CREATE TABLE data_plane_schema (
  id int PRIMARY KEY CHECK (id = 1),
  version int NOT NULL
);
INSERT INTO data_plane_schema (id, version) VALUES (1, 1);
