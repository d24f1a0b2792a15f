import { z } from 'zod';
import { commonFields, defineRule } from '../common.ts';

export const toolDescriptionInjectSchema = z.object({
  rule_type: z.literal('tool_description_inject'),
  ...commonFields,
  inject_text: z.string().min(1).max(8192).describe('Text added to the tool descriptions returned by tools/list.'),
  inject_position: z.enum(['prepend', 'append']).describe('Where the text goes.'),
}).describe('Adds text to tool descriptions in tools/list responses (not at call time).');
export type ToolDescriptionInjectRule = z.output<typeof toolDescriptionInjectSchema>;

export const definition = defineRule(toolDescriptionInjectSchema, ['mcp']);
