// The example and import line of each generated reference page (docs/terraform/). Kept beside the generator so a
// page cannot lose its example; examples/terraform/ holds the complete, applied configuration.
export interface PageExtras { example: string; importId?: string }

export const PAGE_EXTRAS: Record<string, PageExtras> = {
  tollgate_mcp_server: {
    example: `resource "tollgate_mcp_server" "docs" {
  name           = "docs"
  url            = "https://mcp.example.com/mcp"
  auth_type      = "bearer"
  auth_token_wo  = var.docs_mcp_token
  auth_token_wo_version = 1
  discover_tools = true
}`,
    importId: '<mcp server id>',
  },
  tollgate_mcp_resource: {
    example: `resource "tollgate_mcp_resource" "handbook" {
  mcp_server_id = tollgate_mcp_server.docs.id
  uri           = "docs://handbook"
  name          = "handbook"
  mime_type     = "text/markdown"
  content       = file("\${path.module}/handbook.md")
}`,
    importId: '<mcp server id>/<resource id>',
  },
  tollgate_llm_proxy: {
    example: `resource "tollgate_llm_proxy" "openai" {
  name           = "openai"
  llm_provider   = "openai"
  provider_key   = var.openai_key
  allowed_models = ["gpt-4o-mini"]
  budget = {
    period     = "monthly"
    cap_usd    = 200
    hard_block = true
  }
}`,
    importId: '<llm proxy id>',
  },
  tollgate_api_key: {
    example: `resource "tollgate_api_key" "agent" {
  name            = "agent"
  mcp_permissions = [{ id = tollgate_mcp_server.docs.id, tools = ["*"], resources = ["*"] }]
  llm_permissions = [{ id = tollgate_llm_proxy.openai.id, models = ["gpt-4o-mini"] }]
  custom_tags     = ["team-search"]
}

output "agent_key" {
  value     = tollgate_api_key.agent.key
  sensitive = true
}`,
    importId: '<key id> (the plaintext key cannot be recovered: key stays null)',
  },
  tollgate_rule_set: {
    example: `resource "tollgate_rule_set" "docs" {
  proxy_kind = "mcp"
  proxy_id   = tollgate_mcp_server.docs.id
  rules = [
    { rule_type = "ip_acl", action = "allow", cidrs = ["10.0.0.0/8"], tools = ["*"] },
    { rule_type = "rate_limit", name = "per-key", tools = ["*"], match_key = "api_key", threshold = 60, timespan = 60 },
  ]
}`,
    importId: '<proxy id> (MCP server or LLM proxy)',
  },
  tollgate_llm_key_budget: {
    example: `resource "tollgate_llm_key_budget" "agent" {
  llm_proxy_id = tollgate_llm_proxy.openai.id
  api_key_id   = tollgate_api_key.agent.id
  period       = "daily"
  cap_usd      = 10
}`,
    importId: '<llm proxy id>/<api key id>',
  },
  'data.tollgate_profile': { example: 'data "tollgate_profile" "me" {}' },
  'data.tollgate_mcp_server': { example: 'data "tollgate_mcp_server" "docs" {\n  name = "docs"\n}' },
  'data.tollgate_llm_proxy': { example: 'data "tollgate_llm_proxy" "openai" {\n  id = var.openai_proxy_id\n}' },
};
