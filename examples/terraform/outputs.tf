output "mcp_proxy_host" {
  description = "The host MCP clients call (Authorization: Bearer <agent key>)."
  value       = tollgate_mcp_server.docs.proxy_host
}

output "mcp_tools" {
  description = "Tools discovered on the upstream."
  value       = tollgate_mcp_server.docs.tools
}

output "openai_proxy_host" {
  description = "The host OpenAI clients use as their base URL."
  value       = tollgate_llm_proxy.openai.proxy_host
}

output "agent_key" {
  description = "The agent's client key (terraform output -raw agent_key)."
  value       = tollgate_api_key.agent.key
  sensitive   = true
}
