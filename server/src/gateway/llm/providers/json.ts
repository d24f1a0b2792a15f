// Small readers for untrusted JSON values (provider bodies), so translation code never needs an unchecked cast.
import type { Json, JsonObject } from './types.ts';

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function obj(v: unknown, key: string): JsonObject | undefined {
  if (!isObject(v)) return undefined;
  const x = v[key];
  return isObject(x) ? x : undefined;
}

export function arr(v: unknown, key: string): Json[] | undefined {
  if (!isObject(v)) return undefined;
  const x = v[key];
  return Array.isArray(x) ? x : undefined;
}

export function str(v: unknown, key: string): string | undefined {
  if (!isObject(v)) return undefined;
  const x = v[key];
  return typeof x === 'string' ? x : undefined;
}

/** A trillion tokens in one answer is not a real count. */
const MAX_COUNT = 1e12;

/** A non-negative integer field (token counts) up to MAX_COUNT; anything else reads as undefined. */
export function count(v: unknown, key: string): number | undefined {
  if (!isObject(v)) return undefined;
  const x = v[key];
  // Bounded so that a nonsensical count from an upstream can never overflow the bigint columns of a usage batch.
  return typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= MAX_COUNT ? Math.floor(x) : undefined;
}

/** Parses JSON; undefined when it is not JSON. */
export function parseJson(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

/**
 * Rewrites a string-or-parts content value: a string, or an array of parts whose text lives in `textKey` of parts
 * with a text `type` (OpenAI `text`/`input_text`, Anthropic `text`). Returns the new value, or undefined if unchanged.
 */
export function mapContent(content: Json | undefined, fn: (s: string) => string | undefined, textTypes: readonly string[]): Json | undefined {
  if (typeof content === 'string') {
    const r = fn(content);
    return r !== undefined && r !== content ? r : undefined;
  }
  if (!Array.isArray(content)) return undefined;
  let changed = false;
  for (const part of content) {
    if (!isTextPart(part, textTypes)) continue;
    const r = fn(part.text);
    if (r !== undefined && r !== part.text) {
      part.text = r;
      changed = true;
    }
  }
  return changed ? content : undefined;
}

/** A part with a string `text` whose `type`, if it has one, is one of textTypes. */
function isTextPart(part: Json, textTypes: readonly string[]): part is JsonObject & { text: string } {
  if (!isObject(part) || typeof part.text !== 'string') return false;
  const t = part.type;
  return typeof t !== 'string' || textTypes.includes(t);
}

/** The first defined number among several field names (providers renamed usage fields over time). */
export function firstCount(v: unknown, ...keys: string[]): number | undefined {
  for (const k of keys) {
    const n = count(v, k);
    if (n !== undefined) return n;
  }
  return undefined;
}

/**
 * The JSON object that is the value of the last `"<key>":` in a serialized document, without parsing the rest
 * (responses put usage last; a quote inside a string value is always escaped, so the raw `"key":` sequence is a
 * key). Undefined when there is no such object or it does not parse.
 */
export function lastObjectOf(text: string, key: string): Json | undefined {
  const needle = `"${key}":`;
  let at = text.lastIndexOf(needle);
  while (at >= 0) {
    let i = at + needle.length;
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
    if (text[i] === '{') {
      const end = objectEnd(text, i);
      return end < 0 ? undefined : parseJson(text.slice(i, end + 1));
    }
    at = at > 0 ? text.lastIndexOf(needle, at - 1) : -1;
  }
  return undefined;
}

/** Index of the `}` closing the object that starts at `start`, skipping strings; -1 if unbalanced. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123) depth++;
    else if (c === 125 && --depth === 0) return i;
  }
  return -1;
}
