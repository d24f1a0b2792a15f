// How a failed parse becomes the user-facing message `<field>: <reason>` (spec: 400 bodies). The server answers with
// it, and the Terraform provider and the operator show the same words before anything reaches the server.
import type { z } from 'zod';

/** The longest key of a record that a message repeats whole; longer ones are cut (a client chooses them). */
const SHOWN_KEY = 64;

/**
 * `rules[2].pattern`, `budget.capUsd`: the path of an issue as users write it. A record's key is the client's, so one
 * longer than SHOWN_KEY is cut with an ellipsis: a message never echoes a key of a megabyte.
 */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') {
      out += `[${p}]`;
      continue;
    }
    const key = String(p);
    const shown = key.length > SHOWN_KEY ? `${key.slice(0, SHOWN_KEY)}…` : key;
    out += out ? `.${shown}` : shown;
  }
  return out;
}

export function issueMessage(issues: readonly z.core.$ZodIssue[]): string {
  const first = issues[0];
  if (!first) return 'invalid input';
  const where = formatPath(first.path);
  return where ? `${where}: ${first.message}` : first.message;
}

/** A parse as a value: the data, or the message the API would answer with. */
export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

export function check<S extends z.ZodType>(schema: S, input: unknown): Checked<z.output<S>> {
  const r = schema.safeParse(input);
  return r.success ? { ok: true, value: r.data } : { ok: false, message: issueMessage(r.error.issues) };
}
