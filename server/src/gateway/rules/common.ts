// Fields every rule has, and helpers shared by the rule schemas.
import { z } from 'zod';
import { compileUserRegex, slowPatternReason } from './regex.ts';

export const commonFields = {
  enabled: z.boolean().default(true).describe('Toggles the rule without deleting it.'),
  tools: z.array(z.string().min(1)).min(1, 'must list tool names or ["*"]')
    .describe('Tool names the rule applies to, or ["*"] for all. On LLM proxies it is ["*"].'),
};

export const regexFlags = z.string().regex(/^[ism]*$/, 'only the flags i, s and m are supported').default('')
  .describe('i: case-insensitive, s: dot matches newline, m: ^ and $ match at line breaks.');

/**
 * A user pattern must compile in the linear-time engine, and must not be pathologically slow in it; the reason
 * names what the engine cannot run.
 */
export function refinePattern<T extends { pattern: string; regex_flags?: string }>(rule: T, ctx: z.RefinementCtx): void {
  const err = compileUserRegex(rule.pattern, rule.regex_flags ?? '').error ?? slowPatternReason(rule.pattern);
  if (err) ctx.addIssue({ code: 'custom', path: ['pattern'], message: err });
}

export const ruleName = z.string().regex(/^[a-zA-Z0-9_-]+$/, 'use letters, numbers, - and _ only');
