// Request bodies of the client-key endpoints (spec "Client API keys"). The server checks the name first, with the
// spec's two exact messages (server/src/keys/body.ts); everything else is checked by these schemas.
import { z } from 'zod';

export const KEY_NAME_RE = /^[a-zA-Z0-9_-]+$/;
export const MAX_KEY_NAME = 64;

/** Bounds that keep one key's tag set small enough to hold in every gateway's memory (spec: "not shown"). */
export const KEY_LIMITS = {
  permissionsPerKind: 100,
  itemsPerPermission: 500,
  customTags: 50,
  itemLength: 256,
} as const;

const item = z.string().min(1).max(KEY_LIMITS.itemLength);
const items = z.array(item).max(KEY_LIMITS.itemsPerPermission);

export const mcpPermissionSchema = z.object({
  id: z.string().describe('Id of one of your MCP servers.'),
  tools: items.default([]).describe('Tool names from the server\'s discovered catalog, or ["*"] for every tool.'),
  resources: items.default([]).describe('Ids of the server\'s synthetic resources (from /api/mcp/:id/resources) or of its mcp_resource rules, or ["*"] for every resource, upstream ones included.'),
}).describe('What the key may reach on one MCP server.');

export const llmPermissionSchema = z.object({
  id: z.string().describe('Id of one of your LLM proxies.'),
  models: items.describe('Model ids, or ["*"] for any model the proxy allows (its allowedModels still apply).'),
}).describe('What the key may reach on one LLM proxy.');

const permissionFields = {
  mcpPermissions: z.array(mcpPermissionSchema).max(KEY_LIMITS.permissionsPerKind).default([])
    .describe('MCP grants; tags mcp:<id>:tool:<t> and mcp:<id>:resource:<r> are built from them.'),
  llmPermissions: z.array(llmPermissionSchema).max(KEY_LIMITS.permissionsPerKind).default([])
    .describe('LLM grants; tags llm:<id>:model:<m> are built from them.'),
  customTags: z.array(z.string().min(1).max(KEY_LIMITS.itemLength)).max(KEY_LIMITS.customTags).default([])
    .describe('Free-form tags kept as given. The namespaces svc:, private:, name:, mcp: and llm: are reserved.'),
};

export const createKeyBodySchema = z.object({
  name: z.string().regex(KEY_NAME_RE).max(MAX_KEY_NAME).describe('Label of the key: letters, numbers, - and _; fixed at creation.'),
  ...permissionFields,
}).describe('A new client API key.');

export const updateKeyBodySchema = z.object({
  name: z.string().optional().describe('Ignored when equal to the current name; a different name is refused (names are fixed).'),
  ...permissionFields,
}).describe('The full intended permission state of a key; it replaces every tag but the name.');

export type CreateKeyBody = z.output<typeof createKeyBodySchema>;
export type UpdateKeyBody = z.output<typeof updateKeyBodySchema>;
export type PermissionInput = Pick<CreateKeyBody, 'mcpPermissions' | 'llmPermissions' | 'customTags'>;
