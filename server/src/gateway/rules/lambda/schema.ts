import { z } from 'zod';
import { checkLambdaSource } from '../../lua/compile.ts';
import { commonFields } from '../common.ts';

/** Lua that does not compile (or breaks a static limit) is rejected at PUT time: `rules[i].lua_code: line N: ...`. */
function refineLua(rule: { lua_code: string }, ctx: z.RefinementCtx): void {
  const err = checkLambdaSource(rule.lua_code);
  if (err) ctx.addIssue({ code: 'custom', path: ['lua_code'], message: err });
}

export const lambdaSchema = z.object({
  rule_type: z.literal('lambda'),
  ...commonFields,
  phase: z.enum(['access', 'response']).describe('access runs before forwarding; response (MCP only) after the upstream answers.'),
  name: z.string().min(1).max(128).describe('Human-readable id.'),
  lua_code: z.string().min(1).max(65536).describe('Lua source; sees only the svc table and setmetatable (docs/lambda.md).'),
}).superRefine(refineLua).describe('Runs a sandboxed Lua function on the request or the response.');
export type LambdaRule = z.output<typeof lambdaSchema>;
