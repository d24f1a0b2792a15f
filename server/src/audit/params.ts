// Query strings of the audit read endpoints, parsed with the contract's schemas (400 `<param>: <reason>`).
import type { z } from 'zod';
import { parseOr400 } from '../http/validate.ts';

/** The query string as a plain object: first value of each parameter, empty values dropped. */
export function queryObject(q: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of q) if (v !== '' && !(k in out)) out[k] = v;
  return out;
}

export function parseQuery<S extends z.ZodType>(schema: S, q: URLSearchParams): z.output<S> {
  return parseOr400(schema, queryObject(q));
}
