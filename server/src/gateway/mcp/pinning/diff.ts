// A readable, bounded difference between two tool definitions: one entry per changed member, by path
// (`inputSchema.properties.text.type`), with the old and new value as text. Objects are walked member by member;
// arrays and scalars are compared whole. Used in tool_changed events and in the pending differences of the API.
import type { ToolDefinition, ToolDiffEntry } from '@tollgate/contract';
import { canonicalJson } from './definition.ts';

/** Entries kept; the rest are counted in `omitted`. */
export const MAX_DIFF_ENTRIES = 16;
/** Characters of each old or new value kept. */
export const MAX_DIFF_TEXT = 1000;

export interface ToolDiff {
  diff: ToolDiffEntry[];
  omitted: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function diffDefinitions(before: ToolDefinition | null, after: ToolDefinition): ToolDiff {
  const out: ToolDiff = { diff: [], omitted: 0 };
  walk(out, '', before ?? {}, after);
  return out;
}

function walk(out: ToolDiff, path: string, a: unknown, b: unknown): void {
  if (isRecord(a) && isRecord(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) walk(out, join(path, k), a[k], b[k]);
    return;
  }
  if (a === undefined && b === undefined) return;
  if (a !== undefined && b !== undefined && canonicalJson(a) === canonicalJson(b)) return;
  if (out.diff.length >= MAX_DIFF_ENTRIES) {
    out.omitted++;
    return;
  }
  out.diff.push({ path, before: text(a), after: text(b) });
}

function join(path: string, key: string): string {
  const k = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key);
  return path ? `${path}.${k}` : k;
}

/** A string as it is, anything else as canonical JSON, cut at MAX_DIFF_TEXT characters; null when absent. */
export function text(v: unknown): string | null {
  if (v === undefined) return null;
  const s = typeof v === 'string' ? v : canonicalJson(v);
  return s.length > MAX_DIFF_TEXT ? `${s.slice(0, MAX_DIFF_TEXT)}… (${s.length - MAX_DIFF_TEXT} more characters)` : s;
}
