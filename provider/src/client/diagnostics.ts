// API errors as Terraform diagnostics. The server's 400 messages name the field (`budget.capUsd: must be >= 0`,
// `rules[2].pattern: ...`); the diagnostic points terraform at the same attribute in the configuration, in its
// snake_case name, and keeps the server's words as the detail.
import type { Diagnostic, Path } from '../framework/types.ts';
import type { ApiError } from '@tollgate/contract';

const FIELD_PREFIX = /^([A-Za-z_]\w*(?:\[\d+\]|\.[A-Za-z_]\w*)*): (.+)$/s;

/** camelCase → snake_case: the attribute names are the REST fields in snake_case (docs/terraform.md). */
export function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** `budget.capUsd` → ['budget', 'cap_usd']; `rules[2].pattern` → ['rules', 2, 'pattern']. */
export function fieldPath(field: string, rename: Record<string, string> = {}): Path {
  const out: Path = [];
  for (const m of field.matchAll(/([A-Za-z_]\w*)|\[(\d+)\]/g)) {
    if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[1] !== undefined) out.push(rename[m[1]] ?? snake(m[1]));
  }
  return out;
}

export interface ErrorContext {
  /** What was being done, e.g. "Creating the MCP server". */
  action: string;
  /** REST field names that differ from their attribute (provider → llm_provider). */
  rename?: Record<string, string>;
  /** Where a field path from the server sits in the configuration (e.g. the rule set's rules are at the root). */
  under?: Path;
}

export function apiErrorDiagnostic(err: ApiError, ctx: ErrorContext): Diagnostic {
  const summary = `${ctx.action} failed${err.status ? ` (HTTP ${err.status})` : ''}`;
  if (err.status === 401) {
    return { severity: 'error', summary, detail: `${err.message}. Check the provider's token (or TOLLGATE_TOKEN): it must be a valid personal access token.` };
  }
  const m = FIELD_PREFIX.exec(err.message);
  if (err.status === 400 && m?.[1]) {
    return { severity: 'error', summary, detail: err.message, path: [...(ctx.under ?? []), ...fieldPath(m[1], ctx.rename)] };
  }
  return { severity: 'error', summary, detail: err.message };
}

export function errorDiagnostic(summary: string, detail?: string, path?: Path): Diagnostic {
  return { severity: 'error', summary, ...(detail ? { detail } : {}), ...(path ? { path } : {}) };
}
