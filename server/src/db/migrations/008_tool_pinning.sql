-- Tool-definition pinning (docs/mcp-servers.md, "Tool pinning"). The pinned catalog is mcp_servers.tools: discovery
-- now stores each tool's name, description, inputSchema, outputSchema and annotations with its fingerprint (SHA-256 of
-- their canonical JSON). Catalogs stored before this migration have no fingerprints; the API refuses to switch pinning
-- on for them until discovery runs again, so an old catalog is never mistaken for an approved one.
ALTER TABLE mcp_servers ADD COLUMN tool_pinning text NOT NULL DEFAULT 'off';

-- Differences a gateway saw between the upstream's tools/list and the pinned catalog, one row per tool, until the
-- owner approves them (or runs discovery again). Written by the gateways, off the request path, and read with the
-- snapshot, so every replica judges calls by what any of them saw.
CREATE TABLE mcp_tool_changes (
  mcp_id uuid NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
  tool text NOT NULL,
  fingerprint text NOT NULL,
  definition jsonb NOT NULL,
  detected_at bigint NOT NULL,
  PRIMARY KEY (mcp_id, tool)
);

-- The gateways read both: an older gateway would ignore the pending differences.
UPDATE data_plane_schema SET version = 2 WHERE id = 1;
