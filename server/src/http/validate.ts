// zod failures become the spec's 400 `<field>: <reason>` (the wording lives in the contract package).
import type { z } from 'zod';
import { check } from '@tollgate/contract';
import { HttpError } from './errors.ts';

export function parseOr400<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = check(schema, input);
  if (!r.ok) throw new HttpError(400, r.message);
  return r.value;
}
