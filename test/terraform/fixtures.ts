// The HCL the end-to-end test applies: one configuration with every resource and data source, and its variants.
export interface Vars { mcpUrl: string; keyName?: string; budgetCap?: number; threshold?: number; extra?: string }

export function mainTf(v: Vars): string {
  return `terraform {
  required_providers {
    tollgate = { source = "tollgate/tollgate" }
  }
}

provider "tollgate" {}

resource "tollgate_mcp_server" "tools" {
  name           = "tools"
  url            = "${v.mcpUrl}"
  discover_tools = true
}

resource "tollgate_mcp_resource" "readme" {
  mcp_server_id = tollgate_mcp_server.tools.id
  uri           = "docs://readme"
  name          = "readme"
  content       = "hello from terraform"
}

resource "tollgate_llm_proxy" "chat" {
  name           = "chat"
  llm_provider   = "openai"
  provider_key   = "sk-terraform-test-secret"
  allowed_models = ["gpt-4o-mini", "gpt-4o"]
  budget = {
    period     = "monthly"
    cap_usd    = ${v.budgetCap ?? 50}
    hard_block = true
  }
}

resource "tollgate_rule_set" "mcp" {
  proxy_kind = "mcp"
  proxy_id   = tollgate_mcp_server.tools.id
  rules = [
    { rule_type = "rate_limit", name = "per-key", tools = ["*"], match_key = "api_key", threshold = ${v.threshold ?? 100}, timespan = 60 },
    { rule_type = "tool_description_inject", tools = ["echo"], inject_text = "Managed by Terraform.", inject_position = "append" },
  ]
}

resource "tollgate_rule_set" "llm" {
  proxy_kind = "llm"
  proxy_id   = tollgate_llm_proxy.chat.id
  rules = [
    { rule_type = "prompt_guard", tools = ["*"], action = "block", detectors = ["pi_ignore_previous"] },
  ]
}

resource "tollgate_api_key" "agent" {
  name            = "${v.keyName ?? 'agent'}"
  mcp_permissions = [{ id = tollgate_mcp_server.tools.id, tools = ["echo"], resources = ["*"] }]
  llm_permissions = [{ id = tollgate_llm_proxy.chat.id, models = ["*"] }]
  custom_tags     = ["team-a"]
}

resource "tollgate_llm_key_budget" "agent" {
  llm_proxy_id = tollgate_llm_proxy.chat.id
  api_key_id   = tollgate_api_key.agent.id
  period       = "daily"
  cap_usd      = 5
}

data "tollgate_profile" "me" {}

data "tollgate_mcp_server" "by_name" {
  name = tollgate_mcp_server.tools.name
  depends_on = [tollgate_mcp_server.tools]
}

output "agent_key" {
  value     = tollgate_api_key.agent.key
  sensitive = true
}
output "mcp_id" { value = tollgate_mcp_server.tools.id }
output "llm_id" { value = tollgate_llm_proxy.chat.id }
output "tools" { value = tollgate_mcp_server.tools.tools }
output "email" { value = data.tollgate_profile.me.email }
output "host_by_name" { value = data.tollgate_mcp_server.by_name.proxy_host }
output "pinning_by_name" { value = data.tollgate_mcp_server.by_name.tool_pinning }
${v.extra ?? ''}
`;
}
