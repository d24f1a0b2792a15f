// Per-user quota tags on the consumer, e.g. `private:permissions:mcp:limit:25`.
export function tagLimit(tags: readonly string[], prefix: string): number | undefined {
  for (const t of tags) {
    if (!t.startsWith(prefix)) continue;
    const n = Number(t.slice(prefix.length));
    if (Number.isInteger(n) && n >= 0) return n;
  }
  return undefined;
}

export const QUOTA_TAGS = {
  mcpLimit: 'private:permissions:mcp:limit:',
  apiKeyLimit: 'private:permissions:apikey:limit:',
  resourceLimit: 'private:permissions:resource:limit:',
  mcpMaxRespBodyKb: 'private:permissions:mcp:max_resp_body_kb:',
  llmMaxRespBodyKb: 'private:permissions:llm:max_resp_body_kb:',
} as const;

export const DEFAULT_MCP_LIMIT = 10;
export const DEFAULT_API_KEY_LIMIT = 40;
/** The spec leaves this default open; we chose 100 (docs/decisions/0003-quota-defaults.md). */
export const DEFAULT_RESOURCE_LIMIT = 100;
