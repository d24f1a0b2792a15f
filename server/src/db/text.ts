// PostgreSQL text (and json/jsonb) cannot hold U+0000, and its JSON parser refuses lone UTF-16 surrogates. Strings a
// client controls (tool names, model names, methods) are made storable at the row writers, so one such request can
// never fail a whole batch of audit or usage rows.

const REPLACEMENT = '\uFFFD';
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** What JSON.stringify writes for a NUL or a lone surrogate (it escapes both; a pair is written as characters). */
const UNSTORABLE_ESCAPE = /\\u0000|\\ud[89a-f]/;

/** The string with every NUL replaced by U+FFFD (undefined stays absent as SQL NULL). */
export function storableText(s: string | undefined | null): string | null {
  if (s === undefined || s === null) return null;
  return s.includes('\u0000') ? s.replaceAll('\u0000', REPLACEMENT) : s;
}

/**
 * JSON PostgreSQL accepts (a jsonb column, or rows expanded by json_to_recordset): NULs and lone surrogates in
 * string values become U+FFFD. The replacer pass runs only when the plain serialisation shows one of them.
 */
export function storableJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (!UNSTORABLE_ESCAPE.test(json)) return json;
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'string' ? storableText(v)!.replace(LONE_SURROGATE, REPLACEMENT) : v));
}
