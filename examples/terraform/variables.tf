variable "mcp_url" {
  description = "The upstream MCP endpoint (Streamable HTTP, https, public address)."
  type        = string
}

variable "openai_key" {
  description = "The OpenAI API key the gateway adds to upstream requests."
  type        = string
  sensitive   = true
}

variable "monthly_budget_usd" {
  description = "Monthly USD cap of the OpenAI proxy."
  type        = number
  default     = 100
}
