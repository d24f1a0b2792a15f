import { z } from 'zod';
import { commonFields, defineRule } from '../common.ts';

// Whether the Lua compiles (and keeps the static limits) is checked by the server, which has the Lua engine:
// `rules[i].lua_code: line N: ...`.
export const lambdaSchema = z.object({
  rule_type: z.literal('lambda'),
  ...commonFields,
  phase: z.enum(['access', 'response']).describe('access runs before forwarding; response (MCP only) after the upstream answers.'),
  name: z.string().min(1).max(128).describe('Human-readable id.'),
  lua_code: z.string().min(1).max(65536).describe('Lua source; sees only the svc table and setmetatable (docs/lambda.md).'),
}).describe('Runs a sandboxed Lua function on the request or the response.');
export type LambdaRule = z.output<typeof lambdaSchema>;

export const definition = defineRule(lambdaSchema, ['mcp', 'llm']);
