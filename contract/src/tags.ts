// The tag vocabulary (spec "Key tag vocabulary" and the per-user quota tags): the formats every surface writes and
// reads. Pure functions: the server's ownership and catalog checks that feed them live in server/src/keys/grants.ts.

export const NAME_TAG_PREFIX = 'name:';
export const MCP_FLAG_TAG = 'private:permissions:mcp';
export const WILDCARD = '*';

/**
 * Namespaces the server writes itself. A custom tag in one of them could grant access to a proxy without the
 * ownership check (`mcp:<someone else's id>:tool:*`) or impersonate the PAT (`svc:personal:token`), so they are
 * refused. Compared case-insensitively and after trimming, so look-alikes are refused too.
 */
export const RESERVED_NAMESPACES = ['svc:', 'private:', 'name:', 'mcp:', 'llm:'] as const;

/** One MCP server the caller owns, with what the key may reach on it. */
export interface McpGrant {
  id: string;
  tools: readonly string[];
  resources: readonly string[];
}

/** One LLM proxy the caller owns, with the models the key may use on it. */
export interface LlmGrant {
  id: string;
  models: readonly string[];
}

export function nameTag(name: string): string {
  return NAME_TAG_PREFIX + name;
}

/** The key's `name:` tag, kept verbatim across PATCHes; undefined for a legacy key without one. */
export function findNameTag(tags: readonly string[]): string | undefined {
  return tags.find((t) => t.startsWith(NAME_TAG_PREFIX) && t.length > NAME_TAG_PREFIX.length);
}

/** `['*']` (or any list containing `*`) grants everything, so it collapses to the one wildcard tag. */
function scoped(prefix: string, items: readonly string[]): string[] {
  return items.includes(WILDCARD) ? [prefix + WILDCARD] : items.map((i) => prefix + i);
}

export function mcpTags(g: McpGrant): string[] {
  return [...scoped(`mcp:${g.id}:tool:`, g.tools), ...scoped(`mcp:${g.id}:resource:`, g.resources)];
}

export function llmTags(g: LlmGrant): string[] {
  return scoped(`llm:${g.id}:model:`, g.models);
}

/**
 * The complete tag set of a key: its name tag (`nameTag(name)` on create, the stored one on PATCH), the MCP flag when it reaches any MCP, the per-proxy grants, then the
 * custom tags. Order is stable and duplicates are dropped, so the same input always stores the same array.
 */
export function buildKeyTags(nameTagValue: string, mcp: readonly McpGrant[], llm: readonly LlmGrant[], custom: readonly string[]): string[] {
  const mcpPart = mcp.flatMap(mcpTags);
  const tags = [nameTagValue, ...(mcpPart.length ? [MCP_FLAG_TAG] : []), ...mcpPart, ...llm.flatMap(llmTags), ...custom];
  return [...new Set(tags)];
}

/** The reserved namespace a custom tag falls in, if any. */
export function reservedNamespaceOf(tag: string): string | undefined {
  const t = tag.trim().toLowerCase();
  return RESERVED_NAMESPACES.find((ns) => t.startsWith(ns));
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why a custom tag is refused (reserved namespace, unprintable), or undefined. */
export function customTagProblem(tag: string): string | undefined {
  const ns = reservedNamespaceOf(tag);
  if (ns) return `the "${ns}" namespace is reserved; permissions are set with mcpPermissions and llmPermissions`;
  if (CONTROL.test(tag)) return 'must not contain control characters';
  return undefined;
}

/** The number in a per-user quota tag on the consumer, e.g. `private:permissions:mcp:limit:25`. */
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
  llmLimit: 'private:permissions:llm:limit:',
  mcpMaxRespBodyKb: 'private:permissions:mcp:max_resp_body_kb:',
  llmMaxRespBodyKb: 'private:permissions:llm:max_resp_body_kb:',
  mcpMaxReqBodyKb: 'private:permissions:mcp:max_req_body_kb:',
  llmMaxReqBodyKb: 'private:permissions:llm:max_req_body_kb:',
} as const;

export const DEFAULT_MCP_LIMIT = 10;
export const DEFAULT_API_KEY_LIMIT = 40;
/** The spec gives no LLM proxy quota; we chose the MCP default (docs/decisions/0003-quota-defaults.md). */
export const DEFAULT_LLM_LIMIT = 10;
/** The spec leaves this default open; we chose 100 (docs/decisions/0003-quota-defaults.md). */
export const DEFAULT_RESOURCE_LIMIT = 100;

/** What a key's tags grant, read back: the inverse of buildKeyTags, for clients that reconcile (Terraform, operator). */
export interface ParsedKeyTags {
  name: string | undefined;
  mcpPermissions: McpGrant[];
  llmPermissions: LlmGrant[];
  customTags: string[];
}

const MCP_GRANT = /^mcp:([^:]+):(tool|resource):(.+)$/s;
const LLM_GRANT = /^llm:([^:]+):model:(.+)$/s;

/** Grants come back grouped per proxy in the order the proxies first appear; the flag and svc: tags are dropped. */
export function parseKeyTags(tags: readonly string[]): ParsedKeyTags {
  const mcp = new Map<string, { id: string; tools: string[]; resources: string[] }>();
  const llm = new Map<string, { id: string; models: string[] }>();
  const customTags: string[] = [];
  let name: string | undefined;
  for (const t of tags) {
    const m = MCP_GRANT.exec(t);
    const l = LLM_GRANT.exec(t);
    if (m) {
      const g = mcp.get(m[1]!) ?? { id: m[1]!, tools: [], resources: [] };
      (m[2] === 'tool' ? g.tools : g.resources).push(m[3]!);
      mcp.set(g.id, g);
    } else if (l) {
      const g = llm.get(l[1]!) ?? { id: l[1]!, models: [] };
      g.models.push(l[2]!);
      llm.set(g.id, g);
    } else if (t.startsWith(NAME_TAG_PREFIX)) {
      name ??= t.slice(NAME_TAG_PREFIX.length);
    } else if (!reservedNamespaceOf(t)) {
      customTags.push(t);
    }
  }
  return { name, mcpPermissions: [...mcp.values()], llmPermissions: [...llm.values()], customTags };
}
