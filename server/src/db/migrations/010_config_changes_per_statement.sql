-- Migration 009's triggers, once per statement instead of once per row. Per row, a statement that wrote 10,000 keys
-- ran 10,000 trigger calls (each a dynamic lookup of the owner and an insert) and left 10,000 config_changes rows
-- naming the same user: inserting, updating or deleting them took 5–14 times as long as without the trigger. Per
-- statement, the rows the statement wrote (its transition tables) give the distinct owners in one insert.
--
-- PostgreSQL takes transition tables only on a trigger of one event, hence three triggers per table. What they
-- record is unchanged (server/src/snapshot/changes.ts reads it the same way), so data_plane_schema stays at 3.
CREATE OR REPLACE FUNCTION tollgate_config_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  refs text := CASE TG_OP
    WHEN 'INSERT' THEN format('SELECT %I FROM new_rows', TG_ARGV[0])
    WHEN 'DELETE' THEN format('SELECT %I FROM old_rows', TG_ARGV[0])
    ELSE format('SELECT %1$I FROM new_rows UNION SELECT %1$I FROM old_rows', TG_ARGV[0])
  END;
BEGIN
  -- TG_ARGV as in 009: the column that leads to the owner, and the table it references ('users': the owner's id).
  -- A child row deleted by a cascade finds no parent here; the parent's own trigger has recorded the owner.
  IF TG_ARGV[1] = 'users' THEN
    EXECUTE format('INSERT INTO config_changes (version, user_id) SELECT DISTINCT NULL::bigint, r FROM (%s) AS refs(r) WHERE r IS NOT NULL', refs);
  ELSE
    EXECUTE format('INSERT INTO config_changes (version, user_id) SELECT DISTINCT NULL::bigint, p.user_id FROM %I p WHERE p.id IN (%s)', TG_ARGV[1], refs);
  END IF;
  RETURN NULL;
END $$;

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
    EXECUTE format('DROP TRIGGER config_changed ON %I', t.tbl);
    EXECUTE format('CREATE TRIGGER config_changed_insert AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows '
      'FOR EACH STATEMENT EXECUTE FUNCTION tollgate_config_changed(%L, %L)', t.tbl, t.col, t.parent);
    EXECUTE format('CREATE TRIGGER config_changed_update AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows '
      'FOR EACH STATEMENT EXECUTE FUNCTION tollgate_config_changed(%L, %L)', t.tbl, t.col, t.parent);
    EXECUTE format('CREATE TRIGGER config_changed_delete AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows '
      'FOR EACH STATEMENT EXECUTE FUNCTION tollgate_config_changed(%L, %L)', t.tbl, t.col, t.parent);
  END LOOP;
END $$;
