import { z } from 'zod';
import { commonFields, defineRule } from '../common.ts';
import { DETECTOR_IDS } from './detector-ids.ts';

export const promptGuardSchema = z.object({
  rule_type: z.literal('prompt_guard'),
  ...commonFields,
  mode: z.enum(['regex', 'judge']).default('regex').describe('judge is accepted but inert at runtime.'),
  phase: z.enum(['request', 'response']).default('request').describe('request can block; response only alerts.'),
  detectors: z.array(z.enum(DETECTOR_IDS)).min(1).describe('Detector ids from the catalogue (docs/prompt-guard.md).'),
  action: z.enum(['block', 'rewrite', 'alert']).describe('block: 403; rewrite: substitute matches with rewrite_template; alert: event only.'),
  rewrite_template: z.string().default('').describe('Replacement for rewrite; $0..$9 allowed.'),
}).describe('Detects prompt-injection patterns in prompts (and alerts on responses).');
export type PromptGuardRule = z.output<typeof promptGuardSchema>;

export const definition = defineRule(promptGuardSchema, ['llm']);
