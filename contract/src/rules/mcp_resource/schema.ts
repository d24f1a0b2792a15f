import { z } from 'zod';
import { commonFields, defineRule } from '../common.ts';

const TOOL_NAME_NEEDED = 'is required when expose_as_tool is true';

export const mcpResourceSchema = z.object({
  rule_type: z.literal('mcp_resource'),
  ...commonFields,
  resource_id: z.string().min(1).describe('Stable id of the resource.'),
  uri: z.string().min(1).describe('URI served by resources/list and resources/read.'),
  resource_name: z.string().min(1),
  description: z.string().default(''),
  mime_type: z.string().default('text/plain'),
  content: z.string().max(4 * 1024 * 1024),
  expose_as_tool: z.boolean().default(false).describe('Also expose the content as a synthetic tool.'),
  tool_name: z.string().regex(/^[a-zA-Z0-9_.-]+$/).optional().describe('Name of the synthetic tool (required with expose_as_tool).'),
  inject_into_tools: z.array(z.string()).default([]).describe('Tools whose description gets a pointer to this resource.'),
  audience: z.array(z.enum(['assistant', 'user'])).default([]),
  priority: z.number().min(0).max(1).optional(),
}).refine((r) => !r.expose_as_tool || !!r.tool_name, { path: ['tool_name'], message: TOOL_NAME_NEEDED })
  .describe('Serves a static resource (and optionally a tool) without contacting the upstream.');
export type McpResourceRule = z.output<typeof mcpResourceSchema>;

export const definition = defineRule(mcpResourceSchema, ['mcp'], [
  // The refinement above, for the CRD (an unset expose_as_tool is its default, false; tool_name's pattern refuses '').
  { cel: '!has(self.expose_as_tool) || !self.expose_as_tool || has(self.tool_name)', message: `tool_name ${TOOL_NAME_NEEDED}`, fieldPath: '.tool_name' },
]);
