// Descriptions come from the contract's `.describe()` texts, so the schema terraform shows, the generated docs and
// the REST reference say the same thing.
import type { z } from 'zod';

export function describeOf(schema: z.ZodType | undefined): string {
  let s: z.ZodType | undefined = schema;
  // Wrappers (optional, nullable, default) carry the description of what they wrap unless they have their own.
  for (let i = 0; s && i < 5; i++) {
    if (s.description) return s.description;
    const inner = (s as unknown as { def?: { innerType?: z.ZodType } }).def?.innerType;
    s = inner;
  }
  return '';
}
