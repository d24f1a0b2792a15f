// The LLM provider identifiers (docs/llm-gateway.md#providers-and-paths). Their upstream bases are the server's
// business (server/src/llm-admin/registry.ts).
import { z } from 'zod';

export const PROVIDER_IDS = ['openai', 'anthropic', 'gemini', 'mistral'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export const providerIdSchema = z.enum(PROVIDER_IDS, {
  error: (iss) => (iss.input === undefined ? 'is required' : `must be one of ${PROVIDER_IDS.join(', ')}`),
}).describe('The LLM provider: openai, anthropic, gemini or mistral.');

export function isProviderId(s: unknown): s is ProviderId {
  return typeof s === 'string' && (PROVIDER_IDS as readonly string[]).includes(s);
}
