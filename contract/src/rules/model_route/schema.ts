import { z } from 'zod';
import { commonFields, defineRule, refinePattern, regexFlags } from '../common.ts';

export const modelRouteSchema = z.object({
  rule_type: z.literal('model_route'),
  ...commonFields,
  pattern: z.string().min(1).describe('Regular expression over the concatenated role=user message contents.'),
  regex_flags: regexFlags,
  target_model: z.string().min(1).describe('Model the upstream receives when the pattern matches.'),
}).superRefine(refinePattern).describe('Routes a request to another model; the first matching rule wins.');
export type ModelRouteRule = z.output<typeof modelRouteSchema>;

export const definition = defineRule(modelRouteSchema, ['llm']);
