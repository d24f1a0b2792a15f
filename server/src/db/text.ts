// PostgreSQL text (and json/jsonb) cannot hold U+0000, and its JSON parser refuses lone UTF-16 surrogates. Strings a
// client controls (tool names, model names, methods) are made storable at the row writers, so one such request can
// never fail a whole batch of audit or usage rows.
import { setImmediate as nextTurn } from 'node:timers/promises';

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

/** Items serialised per turn of the event loop by `storableJsonInTurns`. */
const ITEMS_PER_TURN = 100;

/**
 * `storableJson` of an array, serialised a slice at a time with a turn of the event loop between slices, so that a
 * large batch of rows never holds the loop for long: an audit batch of 500 events took 0.5–1 ms in one piece
 * (docs/performance.md, "The tail: nothing recorded runs on the event loop").
 */
export async function storableJsonInTurns(items: readonly unknown[], perTurn = ITEMS_PER_TURN): Promise<string> {
  if (items.length <= perTurn) return storableJson(items);
  const parts: string[] = [];
  for (let at = 0; at < items.length; at += perTurn) {
    if (at > 0) await nextTurn();
    // The slice's array brackets are dropped and the elements joined under one pair.
    parts.push(storableJson(items.slice(at, at + perTurn)).slice(1, -1));
  }
  return `[${parts.join(',')}]`;
}

/**
 * A text parameter given as its UTF-8 bytes, for texts of many MB (a sealed conversation log): building one JS
 * string of them, and copying that string to the embedded database's thread, held the event loop for 10–25 ms each
 * at 32 MB. Bytes allocated with `sharedTextBytes` reach that thread without a copy (a SharedArrayBuffer is shared,
 * not cloned), and the thread decodes them (pglite-worker.ts). On PostgreSQL a TextBytes parameter of its own is sent
 * as its bytes (postgres.ts); in an array node-postgres decodes it here through `toPostgres`.
 */
export class TextBytes {
  readonly kind = 'text-bytes';
  constructor(readonly bytes: Uint8Array) {}

  toPostgres(): string {
    return bufferOf(this.bytes).toString('utf8');
  }
}

/** The bytes as a Buffer over the same memory (no copy). */
export function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A buffer of `n` bytes in shared memory, for a TextBytes parameter. */
export function sharedTextBytes(n: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(n));
}

/** A TextBytes parameter once it has crossed to another thread (the class does not; its fields do). */
function isTextBytes(v: unknown): v is { kind: 'text-bytes'; bytes: Uint8Array } {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'text-bytes' && (v as { bytes?: unknown }).bytes instanceof Uint8Array;
}

const decodeText = (v: unknown) => (isTextBytes(v) ? bufferOf(v.bytes).toString('utf8') : v);

/** Query parameters with every TextBytes, alone or in an array, decoded to its string. */
export function decodeTextParams(params: readonly unknown[] | undefined): unknown[] | undefined {
  return params?.map((p) => (Array.isArray(p) ? p.map(decodeText) : decodeText(p)));
}
