// How a failed parse becomes the user-facing message `<field>: <reason>` (spec: 400 bodies). The server answers with
// it, and the Terraform provider and the operator show the same words before anything reaches the server.
import type { z } from 'zod';

/** The longest name chosen by a client or an upstream that a message repeats whole. */
const SHOWN_NAME = 64;

/** A name for a message: cut with an ellipsis past SHOWN_NAME characters, so a message never echoes a megabyte. */
export function shownInMessage(name: string): string {
  return name.length > SHOWN_NAME ? `${name.slice(0, SHOWN_NAME)}…` : name;
}

/**
 * `rules[2].pattern`, `budget.capUsd`: the path of an issue as users write it. A record's key is the client's, so it
 * goes through shownInMessage.
 */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') {
      out += `[${p}]`;
      continue;
    }
    const key = shownInMessage(String(p));
    out += out ? `.${key}` : key;
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
