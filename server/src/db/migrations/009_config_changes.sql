-- Which tenants each configuration version changed, so that a gateway reloads only their proxies and keys instead of
-- every tenant's (server/src/snapshot/changes.ts; docs/architecture.md, "Incremental reloads").
--
-- The database records them, not the code that writes: a trigger on every table the snapshot reads adds the owning
-- user of each written row with version NULL, and bumpConfigVersion stamps the unstamped rows with the version it
-- takes. No write path can forget to say whom it changed, which would leave a revoked key working on a gateway.
-- A row written after its transaction's bump stays unstamped until the next bump; gateways read unstamped rows with
-- every reload, so such a write is never missed either.
CREATE TABLE config_changes (
  version bigint,
  user_id uuid NOT NULL
);
CREATE INDEX config_changes_version ON config_changes (version);

-- Every change with a version above changes_from is still in config_changes (older rows are pruned by the bump); a
-- gateway whose snapshot is older than that loads everything.
ALTER TABLE config_state ADD COLUMN changes_from bigint;
UPDATE config_state SET changes_from = version;
ALTER TABLE config_state ALTER COLUMN changes_from SET NOT NULL;

-- TG_ARGV[0]: the row's column that leads to its owner; TG_ARGV[1]: the table whose id it references (its user_id is
-- the owner), or 'users' when the column is the owner's id itself. A child row deleted by a cascade finds no parent
-- here; the parent's own trigger has recorded the owner.
CREATE FUNCTION tollgate_config_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  refs uuid[] := '{}';
  ref uuid;
  owner uuid;
BEGIN
  IF TG_OP <> 'DELETE' THEN refs := refs || (to_jsonb(NEW) ->> TG_ARGV[0])::uuid; END IF;
  IF TG_OP <> 'INSERT' THEN refs := refs || (to_jsonb(OLD) ->> TG_ARGV[0])::uuid; END IF;
  FOREACH ref IN ARRAY ARRAY(SELECT DISTINCT r FROM unnest(refs) AS r WHERE r IS NOT NULL) LOOP
    IF TG_ARGV[1] = 'users' THEN
      owner := ref;
    ELSE
      EXECUTE format('SELECT user_id FROM %I WHERE id = $1', TG_ARGV[1]) INTO owner USING ref;
    END IF;
    IF owner IS NOT NULL THEN
      INSERT INTO config_changes (version, user_id) VALUES (NULL, owner);
    END IF;
  END LOOP;
  RETURN NULL;
END $$;

-- One trigger per table server/src/snapshot/load.ts reads (a table it starts to read needs one too): the table, the
-- column that leads to the owner, and the table that column references. Every UPDATE counts, not only those of the
-- columns load.ts reads today, so that a column it starts to read is covered; none of these tables is written on the
-- request path.
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN SELECT * FROM (VALUES
    ('consumers', 'user_id', 'users'),
    ('credentials', 'consumer_id', 'consumers'),
    ('gateway_services', 'user_id', 'users'),
    ('gateway_routes', 'service_id', 'gateway_services'),
    ('gateway_plugins', 'service_id', 'gateway_services'),
    ('mcp_servers', 'user_id', 'users'),
    ('mcp_tool_changes', 'mcp_id', 'mcp_servers'),
    ('mcp_resources', 'mcp_id', 'mcp_servers'),
    ('llm_proxies', 'user_id', 'users'),
    ('key_budgets', 'llm_id', 'llm_proxies')
  ) AS v(tbl, col, parent) LOOP
    EXECUTE format('CREATE TRIGGER config_changed AFTER INSERT OR DELETE OR UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION tollgate_config_changed(%L, %L)',
      t.tbl, t.col, t.parent);
  END LOOP;
END $$;

-- The gateways read config_changes and changes_from.
UPDATE data_plane_schema SET version = 3 WHERE id = 1;
