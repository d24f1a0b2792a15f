// PostgreSQL text (and jsonb) cannot hold U+0000. Strings a client controls (tool names, model names, methods) are
// made storable at the row writers, so one such request can never fail a whole batch of audit or usage rows.

const REPLACEMENT = '\uFFFD';

/** The string with every NUL replaced by U+FFFD (undefined stays absent as SQL NULL). */
export function storableText(s: string | undefined | null): string | null {
  if (s === undefined || s === null) return null;
  return s.includes('\u0000') ? s.replaceAll('\u0000', REPLACEMENT) : s;
}

/** JSON for a jsonb column, with NULs in string values replaced (the replacer pass runs only when one is there). */
export function storableJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (!json.includes('\\u0000')) return json;
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'string' ? storableText(v) : v));
}
