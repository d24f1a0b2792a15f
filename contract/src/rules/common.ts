// Fields every rule has, and the pieces the rule schemas share.
import { z } from 'zod';
import { MAX_REPETITION_SIZE, repetitionSize } from './regex-cost.ts';

export type ProxyKind = 'mcp' | 'llm';
export const PROXY_KINDS = ['mcp', 'llm'] as const satisfies readonly ProxyKind[];

/**
 * A check of one rule type that spans several fields, as CEL for the CRD of RuleSet (its `x-kubernetes-validations`):
 * `self` is one rule as the CRD holds it, of this rule type, with no defaults filled in (an unset field is absent, so
 * `has()` stands for "not null"). Each one mirrors a zod refinement of the rule's schema and keeps its message.
 */
export interface CrossFieldRule {
  cel: string;
  message: string;
  /** The field the message is about, as a CEL field path relative to the rule (`.ban_timespan`). */
  fieldPath?: string;
}

/**
 * What a rule folder's schema.ts exports as `definition`: its schema, the proxy kinds that accept it, and the CEL
 * form of its cross-field refinements. The folder is the registration (`npm run gen` lists the folders into all.ts).
 */
export interface RuleDefinition<S extends z.ZodObject = z.ZodObject, K extends ProxyKind = ProxyKind> {
  schema: S;
  /** Kept as literals (K) so that the gateway's table of rule servers can require one entry per kind and type. */
  kinds: readonly K[];
  crossFieldRules?: readonly CrossFieldRule[];
}

export function defineRule<S extends z.ZodObject, K extends ProxyKind>(
  schema: S, kinds: readonly K[], crossFieldRules?: readonly CrossFieldRule[],
): RuleDefinition<S, K> {
  return crossFieldRules ? { schema, kinds, crossFieldRules } : { schema, kinds };
}

export const commonFields = {
  enabled: z.boolean().default(true).describe('Toggles the rule without deleting it.'),
  tools: z.array(z.string().min(1)).min(1, 'must list tool names or ["*"]')
    .describe('Tool names the rule applies to, or ["*"] for all. On LLM proxies it is ["*"].'),
};

export const regexFlags = z.string().regex(/^[ism]*$/, 'only the flags i, s and m are supported').default('')
  .describe('i: case-insensitive, s: dot matches newline, m: ^ and $ match at line breaks.');

export const MAX_PATTERN_LENGTH = 4096;

/**
 * Why a pattern would be pathologically slow in RE2, judged by its structure (regex-cost.ts), or undefined. Whether
 * RE2 accepts its syntax at all is checked by the server, which has the engine.
 */
export function slowPatternReason(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) return `pattern is longer than ${MAX_PATTERN_LENGTH} characters`;
  const size = repetitionSize(pattern);
  if (size <= MAX_REPETITION_SIZE) return undefined;
  return `pattern is too slow on long inputs (its counted repetitions expand to ${size} instructions, at most ${MAX_REPETITION_SIZE} are allowed; keep counted repetitions of groups small)`;
}

export function refinePattern<T extends { pattern: string }>(rule: T, ctx: z.RefinementCtx): void {
  const err = slowPatternReason(rule.pattern);
  if (err) ctx.addIssue({ code: 'custom', path: ['pattern'], message: err });
}

export const ruleName = z.string().regex(/^[a-zA-Z0-9_-]+$/, 'use letters, numbers, - and _ only');
