// Pieces every resource uses: read-or-gone, and secrets that may be given as a stored sensitive argument or as a
// Terraform 1.11 write-only argument (never stored) with a version that says when to send it again.
import type { ObjectValue, Result } from '../framework/types.ts';
import { NOT_FOUND, type ApiResult } from '@tollgate/contract';
import { apiErrorDiagnostic, errorDiagnostic, type ErrorContext } from '../client/diagnostics.ts';
import { num, str } from './values.ts';

/** A delete that finds the object already gone has done its job (it was removed behind terraform's back). */
export async function goneIsFine(call: Promise<ApiResult<unknown>>, ctx: ErrorContext): Promise<Result<void>> {
  const r = await call;
  if (!r.ok && r.error.status !== NOT_FOUND) return { diagnostics: [apiErrorDiagnostic(r.error, ctx)] };
  return { diagnostics: [] };
}

/** Import by the object's own id: read() fills in the rest. */
export async function importById(_client: unknown, id: string): Promise<Result<ObjectValue>> {
  return { value: { id }, diagnostics: [] };
}

/** Import by a composite id `<a>/<b>` (e.g. <mcp server id>/<resource id>). */
export function splitImportId(id: string, expected: string): Result<[string, string]> {
  const [a, b, ...rest] = id.split('/');
  if (!a || !b || rest.length) return { diagnostics: [errorDiagnostic('Invalid import id', `expected ${expected}, got "${id}"`)] };
  return { value: [a, b], diagnostics: [] };
}

/** GET the object; a 404 means it was deleted behind terraform's back, and terraform plans to create it again. */
export async function readOrGone<T>(fetch: () => Promise<ApiResult<T>>, toState: (body: T) => ObjectValue, ctx: ErrorContext): Promise<Result<ObjectValue | null>> {
  const r = await fetch();
  if (r.ok) return { value: toState(r.body), diagnostics: [] };
  if (r.error.status === NOT_FOUND) return { value: null, diagnostics: [] };
  return { diagnostics: [apiErrorDiagnostic(r.error, ctx)] };
}

/**
 * The secret to send, or undefined to leave the stored one alone. On create whichever form is set; on update only
 * when the stored form changed or the write-only version moved (terraform cannot see a write-only value change).
 */
export function writeOnlySecret(planned: ObjectValue, config: ObjectValue, name: string, prior?: ObjectValue): string | null | undefined {
  const wo = str(config, `${name}_wo`);
  if (!prior) return wo ?? str(planned, name) ?? undefined;
  if (wo !== null && num(planned, `${name}_wo_version`) !== num(prior, `${name}_wo_version`)) return wo;
  if (str(planned, name) !== str(prior, name)) return str(planned, name);
  return undefined;
}
