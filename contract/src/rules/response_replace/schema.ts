import { z } from 'zod';
import { commonFields, defineRule, refinePattern, regexFlags } from '../common.ts';

export const responseReplaceSchema = z.object({
  rule_type: z.literal('response_replace'),
  ...commonFields,
  pattern: z.string().min(1).describe('Regular expression (RE2 syntax; PCRE backreferences and lookaround are rejected).'),
  replacement: z.string().describe('Replacement; $0 is the whole match, $1..$9 the groups; empty drops matches.'),
  regex_flags: regexFlags,
  dlp_rule_id: z.string().optional().describe('Opaque marker of a managed DLP rule.'),
}).superRefine(refinePattern).describe('Redacts upstream tool responses (JSON and SSE).');
export type ResponseReplaceRule = z.output<typeof responseReplaceSchema>;

export const definition = defineRule(responseReplaceSchema, ['mcp']);
