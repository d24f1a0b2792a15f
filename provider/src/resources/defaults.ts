// The contract's defaults, read from its schemas: the plan fills them in so that it shows exactly what the server
// will store, and a default changed in the contract changes the plan with it.
import type { z } from 'zod';
import { budgetSchema, createLlmProxySchema, inboundAuthSchema, mcpCreateSchema, resourceCreateSchema } from '@tollgate/contract';

function defaultOf<S extends z.ZodType>(schema: S): z.output<S> {
  const r = schema.safeParse(undefined);
  if (!r.success) throw new Error('the contract schema has no default');
  return r.data;
}

export const DEFAULTS = {
  authMode: defaultOf(inboundAuthSchema.shape.mode),
  clockSkewS: defaultOf(inboundAuthSchema.shape.clockSkewS),
  hardBlock: defaultOf(budgetSchema.shape.hardBlock),
  mcpAuthType: defaultOf(mcpCreateSchema.shape.authType),
  mcpToolPinning: defaultOf(mcpCreateSchema.shape.toolPinning),
  allowedModels: defaultOf(createLlmProxySchema.shape.allowedModels),
  logConversations: defaultOf(createLlmProxySchema.shape.logConversations),
  mimeType: defaultOf(resourceCreateSchema.shape.mimeType),
} as const;
