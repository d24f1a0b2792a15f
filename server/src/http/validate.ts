// zod failures become the spec's 400 `<field>: <reason>`.
import type { z } from 'zod';
import { HttpError } from './errors.ts';

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out;
}

export function issueMessage(issues: readonly z.core.$ZodIssue[]): string {
  const first = issues[0];
  if (!first) return 'invalid input';
  const where = formatPath(first.path);
  return where ? `${where}: ${first.message}` : first.message;
}

export function parseOr400<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) throw new HttpError(400, issueMessage(r.error.issues));
  return r.data;
}
