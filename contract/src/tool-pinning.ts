// Tool-definition pinning (rug-pull protection): the proxy setting, the pending differences between the upstream's
// tool definitions and the approved (pinned) catalog, and the approval body. docs/mcp-servers.md, "Tool pinning".
import { z } from 'zod';

/**
 * What the gateway does when an upstream tool's definition differs from the pinned one. `off` (the default) compares
 * nothing, so a proxy that leaves the setting alone behaves exactly as before the setting existed.
 */
export const TOOL_PINNING_MODES = ['off', 'warn', 'hide', 'block'] as const;
export type ToolPinningMode = (typeof TOOL_PINNING_MODES)[number];

export const toolPinningSchema = z.enum(TOOL_PINNING_MODES, { error: 'must be off, warn, hide or block' })
  .describe('What the gateway does when an upstream tool definition differs from the approved catalog: off (compare nothing), '
    + 'warn (pass, record a tool_changed event), hide (drop changed and new tools from tools/list and refuse calls to them) '
    + 'or block (refuse every MCP request of the proxy until the owner approves the change).');

/** The fields of a tool that are pinned, in the form they are fingerprinted and compared. */
export const toolDefinitionSchema = z.strictObject({
  name: z.string(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
}).describe('A tool definition as fingerprinted: name, description, inputSchema, outputSchema and annotations.');

export const toolDiffEntrySchema = z.strictObject({
  path: z.string().describe('The changed member, e.g. `description` or `inputSchema.properties.text.type`.'),
  before: z.string().nullable().describe('The approved value (a string as it is, anything else as canonical JSON), at most 1000 characters; null when absent.'),
  after: z.string().nullable().describe('The upstream\'s value now, in the same form; null when absent.'),
}).describe('One difference between the approved and the current definition.');

export const toolChangeSchema = z.strictObject({
  tool: z.string(),
  change: z.enum(['changed', 'added']).describe('changed: the tool is in the approved catalog with another definition; added: it is not in it.'),
  pinnedFingerprint: z.string().nullable().describe('SHA-256 (hex) of the approved definition; null for an added tool.'),
  fingerprint: z.string().describe('SHA-256 (hex) of the definition the upstream serves now.'),
  pinned: toolDefinitionSchema.nullable().describe('The approved definition; null for an added tool.'),
  current: toolDefinitionSchema.describe('The definition the upstream serves now.'),
  diff: z.array(toolDiffEntrySchema).describe('What differs, at most 16 entries.'),
  diffOmitted: z.number().int().describe('Differences left out of diff beyond its 16 entries.'),
  detectedAt: z.number().int().describe('When a gateway first saw this definition, Unix seconds.'),
}).describe('A pending difference: the upstream serves a tool definition that nobody approved.');

export const toolChangesSchema = z.strictObject({
  toolPinning: toolPinningSchema,
  pending: z.array(toolChangeSchema).describe('Every pending difference, by tool name.'),
}).describe('The pending tool-definition differences of an MCP server.');

export const MAX_APPROVE_TOOLS = 1000;

const FINGERPRINT = /^[0-9a-f]{64}$/;

export const toolApproveSchema = z.object({
  tools: z.array(z.string({ error: 'must be a list of tool names' }).min(1, 'must not hold an empty name'), { error: 'must be a list of tool names' })
    .min(1, 'must name at least one tool (leave tools out to approve every pending change)')
    .max(MAX_APPROVE_TOOLS, `must name at most ${MAX_APPROVE_TOOLS} tools`)
    .optional()
    .describe('The tools whose current definitions become the approved ones; every pending tool when left out (and fingerprints too).'),
  fingerprints: z.record(
    z.string().min(1, 'must not hold an empty tool name'),
    z.string({ error: 'must map tool names to fingerprints' }).regex(FINGERPRINT, 'must be a SHA-256 fingerprint (64 lowercase hex digits)'),
    { error: 'must map tool names to fingerprints' })
    .refine((m) => Object.keys(m).length > 0, 'must name at least one tool')
    .refine((m) => Object.keys(m).length <= MAX_APPROVE_TOOLS, `must name at most ${MAX_APPROVE_TOOLS} tools`)
    .optional()
    .describe('Instead of tools: approve exactly the definitions that were reviewed, tool name → the fingerprint that GET '
      + '/api/mcp/{id}/tool-changes showed. When a tool\'s pending definition has another fingerprint now (the upstream changed '
      + 'it again after it was read) or nothing is pending for it any more, nothing is approved and the answer is 409.'),
}).superRefine((v, ctx) => {
  if (v.tools && v.fingerprints) ctx.addIssue({ code: 'custom', path: ['fingerprints'], message: 'give tools or fingerprints, not both' });
}).describe('Approve pending tool-definition differences.');

export const toolApproveResultSchema = z.strictObject({
  approved: z.array(toolChangeSchema).describe('The differences approved by this call: their current definitions are now pinned.'),
  pending: z.array(toolChangeSchema).describe('The differences still pending.'),
});

export type ToolDefinition = z.output<typeof toolDefinitionSchema>;
export type ToolDiffEntry = z.output<typeof toolDiffEntrySchema>;
export type ToolChange = z.output<typeof toolChangeSchema>;
export type ToolApproveInput = z.output<typeof toolApproveSchema>;
