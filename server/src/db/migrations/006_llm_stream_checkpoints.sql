-- Streamed LLM answers in flight. Their gateway writes how far each has got (tokens and cost delivered so far, and
-- what its outcome event and budget charges need) about once a second and deletes the row in the transaction that
-- records the request's usage. A row nobody has updated for TOLLGATE_STREAM_ORPHAN_MS belongs to a gateway that died:
-- another gateway charges it, once, and marks it recovered (docs/faults.md, "A gateway that dies").
CREATE TABLE llm_stream_checkpoints (
  id uuid PRIMARY KEY,
  llm_id uuid NOT NULL REFERENCES llm_proxies(id) ON DELETE CASCADE,
  heartbeat_ms bigint NOT NULL,
  recovered_ms bigint,
  record jsonb NOT NULL
);
CREATE INDEX llm_stream_checkpoints_orphans ON llm_stream_checkpoints (heartbeat_ms) WHERE recovered_ms IS NULL;
