# A complete Tollgate configuration: an MCP server with tool discovery and a synthetic resource, an LLM proxy with
# a budget, firewall rules for both, a client key with permissions and a per-key budget.
# Run: npm run provider:install; export TOLLGATE_URL=... TOLLGATE_TOKEN=...; terraform init; terraform apply

terraform {
  required_version = ">= 1.5"
  required_providers {
    tollgate = {
      source  = "tollgate/tollgate"
      version = "~> 0.1"
    }
  }
}

# endpoint and token default to TOLLGATE_URL and TOLLGATE_TOKEN (a personal access token).
provider "tollgate" {}

resource "tollgate_mcp_server" "docs" {
  name           = "docs"
  url            = var.mcp_url
  discover_tools = true
}

resource "tollgate_mcp_resource" "handbook" {
  mcp_server_id = tollgate_mcp_server.docs.id
  uri           = "docs://handbook"
  name          = "handbook"
  description   = "How we work"
  mime_type     = "text/markdown"
  content       = "# Handbook\n\nAsk before you deploy on Fridays.\n"
}

resource "tollgate_llm_proxy" "openai" {
  name           = "openai"
  llm_provider   = "openai"
  provider_key   = var.openai_key
  allowed_models = ["gpt-4o-mini", "gpt-4o"]
  default_model  = "gpt-4o-mini"
  budget = {
    period     = "monthly"
    cap_usd    = var.monthly_budget_usd
    hard_block = true
  }
}

resource "tollgate_rule_set" "docs" {
  proxy_kind = "mcp"
  proxy_id   = tollgate_mcp_server.docs.id
  rules = [
    { rule_type = "rate_limit", name = "per-key", tools = ["*"], match_key = "api_key", threshold = 120, timespan = 60 },
    { rule_type = "response_replace", tools = ["*"], pattern = "\\b\\d{4}-\\d{4}-\\d{4}-\\d{4}\\b", replacement = "[card]" },
  ]
}

resource "tollgate_rule_set" "openai" {
  proxy_kind = "llm"
  proxy_id   = tollgate_llm_proxy.openai.id
  rules = [
    { rule_type = "prompt_guard", tools = ["*"], action = "block", detectors = ["pi_ignore_previous", "pi_system_prompt_leak"] },
    { rule_type = "rate_limit", name = "tokens", tools = ["*"], match_key = "tokens_per_minute", threshold = 50000, timespan = 60 },
  ]
}

resource "tollgate_api_key" "agent" {
  name            = "agent"
  mcp_permissions = [{ id = tollgate_mcp_server.docs.id, tools = ["*"], resources = ["*"] }]
  llm_permissions = [{ id = tollgate_llm_proxy.openai.id, models = ["gpt-4o-mini"] }]
  custom_tags     = ["team-search"]
}

resource "tollgate_llm_key_budget" "agent" {
  llm_proxy_id = tollgate_llm_proxy.openai.id
  api_key_id   = tollgate_api_key.agent.id
  period       = "daily"
  cap_usd      = 5
  hard_block   = true
}
