-- Core schema: identities, credentials, proxies, gateway objects, audit events.
-- Timestamps are Unix seconds (bigint). Secrets are stored only as AES-256-GCM envelopes (*_enc) or SHA-256 hashes.

CREATE TABLE users (
  id uuid PRIMARY KEY,
  email text NOT NULL UNIQUE,
  name text,
  password_hash text,
  totp_secret_enc text,
  totp_enabled boolean NOT NULL DEFAULT false,
  created_at bigint NOT NULL
);

-- The gateway consumer of a user: owns the client keys and carries the quota tags.
CREATE TABLE consumers (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
  username text NOT NULL UNIQUE,
  tags text[] NOT NULL DEFAULT '{}'
);

-- Client API keys and the PAT (tag svc:personal:token). Only the SHA-256 of the plaintext is kept.
CREATE TABLE credentials (
  id uuid PRIMARY KEY,
  consumer_id uuid NOT NULL REFERENCES consumers(id) ON DELETE CASCADE,
  key_hash text NOT NULL UNIQUE,
  key_prefix text NOT NULL,
  tags text[] NOT NULL DEFAULT '{}',
  is_pat boolean NOT NULL DEFAULT false,
  created_at bigint NOT NULL
);
CREATE UNIQUE INDEX credentials_one_pat ON credentials (consumer_id) WHERE is_pat;

CREATE TABLE sessions (
  id_hash text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  mfa_passed boolean NOT NULL DEFAULT false,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE mcp_servers (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  url text NOT NULL,
  auth_type text NOT NULL DEFAULT 'none',
  auth_token_enc text,
  auth jsonb,
  tools jsonb NOT NULL DEFAULT '[]',
  pin jsonb,
  created_at bigint NOT NULL
);
CREATE INDEX mcp_servers_user ON mcp_servers (user_id);

CREATE TABLE mcp_resources (
  id uuid PRIMARY KEY,
  mcp_id uuid NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
  uri text NOT NULL,
  name text NOT NULL,
  description text,
  mime_type text NOT NULL DEFAULT 'text/plain',
  content text NOT NULL,
  created_at bigint NOT NULL,
  UNIQUE (mcp_id, uri)
);

CREATE TABLE llm_proxies (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  provider text NOT NULL,
  allowed_models jsonb NOT NULL DEFAULT '[]',
  default_model text,
  provider_key_enc text,
  log_conversations boolean NOT NULL DEFAULT false,
  auth jsonb,
  budget jsonb,
  pin jsonb,
  created_at bigint NOT NULL
);
CREATE INDEX llm_proxies_user ON llm_proxies (user_id);

-- Per-key budget caps on an LLM proxy.
CREATE TABLE key_budgets (
  llm_id uuid NOT NULL REFERENCES llm_proxies(id) ON DELETE CASCADE,
  credential_id uuid NOT NULL REFERENCES credentials(id) ON DELETE CASCADE,
  period text NOT NULL,
  cap_usd double precision NOT NULL,
  hard_block boolean NOT NULL DEFAULT false,
  created_at bigint NOT NULL,
  PRIMARY KEY (llm_id, credential_id)
);

-- Gateway objects (spec: a service, a host route, a path route and a plugin instance per proxy).
CREATE TABLE gateway_services (
  id uuid PRIMARY KEY,
  proxy_id uuid NOT NULL UNIQUE,
  proxy_kind text NOT NULL CHECK (proxy_kind IN ('mcp', 'llm')),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  upstream_url text NOT NULL,
  created_at bigint NOT NULL
);
CREATE TABLE gateway_routes (
  id uuid PRIMARY KEY,
  service_id uuid NOT NULL REFERENCES gateway_services(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('host', 'path')),
  match text NOT NULL UNIQUE
);
-- The plugin instance holds the proxy's rules and inbound auth: what the gateway enforces.
CREATE TABLE gateway_plugins (
  id uuid PRIMARY KEY,
  service_id uuid NOT NULL UNIQUE REFERENCES gateway_services(id) ON DELETE CASCADE,
  auth jsonb,
  rules jsonb NOT NULL DEFAULT '[]',
  updated_at bigint NOT NULL
);

-- Monotonic version of everything the gateway reads; bumped in the same transaction as each change.
CREATE TABLE config_state (
  id int PRIMARY KEY CHECK (id = 1),
  version bigint NOT NULL
);
INSERT INTO config_state (id, version) VALUES (1, 1);

CREATE TABLE audit_events (
  id bigserial PRIMARY KEY,
  user_id uuid,
  ts bigint NOT NULL,
  event_type text NOT NULL,
  client_ip text NOT NULL DEFAULT '',
  mcp_uuid uuid,
  llm_uuid uuid,
  tool text,
  model text,
  rule_name text,
  details jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_events_user_ts ON audit_events (user_id, ts DESC);
CREATE INDEX audit_events_user_type_ts ON audit_events (user_id, event_type, ts DESC);

-- Second factor attempts (rate limit of /api/2fa/challenge) are kept in the state store, not here.
