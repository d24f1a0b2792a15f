import { z } from 'zod';
import { commonFields, defineRule, refinePattern, regexFlags } from '../common.ts';

export const promptReplaceSchema = z.object({
  rule_type: z.literal('prompt_replace'),
  ...commonFields,
  pattern: z.string().min(1).describe('Regular expression (RE2 syntax).'),
  replacement: z.string().describe('Replacement; $0..$9 allowed.'),
  regex_flags: regexFlags,
}).superRefine(refinePattern).describe('Redacts the prompt before it is forwarded. LLM responses are never changed.');
export type PromptReplaceRule = z.output<typeof promptReplaceSchema>;

export const definition = defineRule(promptReplaceSchema, ['llm']);
