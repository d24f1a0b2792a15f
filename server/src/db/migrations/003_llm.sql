-- LLM data plane: daily usage history, durable budget windows and encrypted conversation logs.
-- All three are written by the gateway in batches off the request path (see gateway/llm/accounting-writer.ts).
-- Money is kept in micro-cents (1e-6 cent) so that a 20-token request is not rounded to zero.

-- Usage history, one row per (proxy, UTC day, key, model, pricing version). Each row carries the pricing version that
-- priced it, so a new table version changes only new rows. DELETE /api/llm/:id/usage/history removes rows from here;
-- budget windows (below) are separate and are not touched by it.
CREATE TABLE llm_usage_daily (
  llm_id uuid NOT NULL REFERENCES llm_proxies(id) ON DELETE CASCADE,
  day integer NOT NULL,
  credential_id text NOT NULL DEFAULT '',
  model text NOT NULL,
  pricing_version text NOT NULL,
  requests bigint NOT NULL DEFAULT 0,
  input_tokens bigint NOT NULL DEFAULT 0,
  cached_input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  estimated_requests bigint NOT NULL DEFAULT 0,
  cost_micro_cents bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (llm_id, day, credential_id, model, pricing_version)
);
CREATE INDEX llm_usage_daily_key ON llm_usage_daily (llm_id, credential_id, day);

-- The durable copy of budget windows. The hot copy lives in the state store (Redis) and is rebuilt from here when
-- it is missing (Redis flush or restart). scope is 'proxy' or the credential id of a per-key budget. A reset stamps
-- reset_at_ms; charges made before it that are flushed late are not added back.
CREATE TABLE llm_spend_windows (
  llm_id uuid NOT NULL REFERENCES llm_proxies(id) ON DELETE CASCADE,
  scope text NOT NULL,
  window_tag text NOT NULL,
  spent_micro_cents bigint NOT NULL DEFAULT 0,
  reset_at_ms bigint NOT NULL DEFAULT 0,
  updated_at bigint NOT NULL,
  PRIMARY KEY (llm_id, scope, window_tag)
);

-- Conversation logs (only for proxies with log_conversations). Prompt, completion and the list summaries are
-- AES-256-GCM envelopes sealed with the master key (AAD llmlog:<llm_id>:<id>); a 7-day TTL is enforced by the
-- purge job and by every read.
CREATE TABLE llm_conversation_logs (
  id uuid PRIMARY KEY,
  seq bigserial NOT NULL,
  llm_id uuid NOT NULL REFERENCES llm_proxies(id) ON DELETE CASCADE,
  credential_id text NOT NULL DEFAULT '',
  ts_ms bigint NOT NULL,
  model text NOT NULL,
  status integer NOT NULL,
  streamed boolean NOT NULL DEFAULT false,
  input_tokens bigint NOT NULL DEFAULT 0,
  cached_input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  cost_micro_cents bigint NOT NULL DEFAULT 0,
  pricing_version text NOT NULL,
  summary_enc text NOT NULL,
  prompt_enc text NOT NULL,
  completion_enc text NOT NULL
);
CREATE INDEX llm_conversation_logs_list ON llm_conversation_logs (llm_id, ts_ms DESC, seq DESC);
CREATE INDEX llm_conversation_logs_ts ON llm_conversation_logs (ts_ms);
