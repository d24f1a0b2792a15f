// Hostile values and body mutations: wrong types, missing and extra fields, huge and strange strings, numbers at and
// past their bounds, deep nesting, prototype keys, and bodies that are not JSON at all.
import fc from 'fast-check';

/** A request body as sent: a JSON value (serialised by the client), raw bytes as text, or nothing. */
export type FuzzBody = { kind: 'json'; value: unknown } | { kind: 'raw'; text: string } | { kind: 'none' };

const STRANGE_STRINGS = [
  '', ' ', '\t\n', 'null', 'undefined', 'NaN', 'true', '0', '-1', '1e400', '[]', '{}', '*', '%', '%00', '\\', '"',
  '\u0000', 'a\u0000b', '\u202Eevil', '\uFEFF', '\u200B\u200D', '\uD800', '\uDFFF', 'e\u0301', '🦄'.repeat(100), 'Ω≈ç√∫',
  '<script>alert(1)</script>', "' OR 1=1 --", '${jndi:ldap://x}', '{{7*7}}', '../../../../etc/passwd', '..%2f..%2fapi%2fkeys',
  'svc_pat_', 'svc:personal:token', 'private:permissions:mcp:limit:1000', 'mcp:*:tool:*', 'name:admin', '__proto__',
  'constructor', 'prototype', 'a'.repeat(257), 'x'.repeat(4097),
];

const BOUND_NUMBERS = [0, -0, 1, -1, 0.5, -0.5, 59, 60, 61, 3600, 3601, 86400, 86401, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 53 - 1,
  2 ** 53 + 2, -(2 ** 53) - 2, 1e21, 1e308, -1e308, Number.MIN_VALUE, 20251301, 19700101];

/** Strange strings short enough for a URL or a header. */
export const shortStrangeString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...STRANGE_STRINGS),
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.string({ unit: 'grapheme', maxLength: 64 }),
);

export const strangeString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: shortStrangeString },
  { weight: 1, arbitrary: fc.nat({ max: 3 }).map((n) => 'A'.repeat([10_000, 100_000, 300_000, 1_000_000][n]!)) },
);

/** `levels` arrays (or objects) around a value. */
export function nest(value: unknown, levels: number, objects = false): unknown {
  let v = value;
  for (let i = 0; i < levels; i++) v = objects ? { a: v } : [v];
  return v;
}

const manyKeys = fc.nat({ max: 2 }).map((n) => Object.fromEntries(Array.from({ length: [100, 1000, 10_000][n]! }, (_, i) => [`k${i}`, i])));

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: strangeString },
  { weight: 3, arbitrary: fc.constantFrom(...BOUND_NUMBERS) },
  { weight: 2, arbitrary: fc.constantFrom(null, true, false, [], {}, [null], [''], [[]], { '': '' }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.tuple(fc.jsonValue({ maxDepth: 1 }), fc.integer({ min: 20, max: 2000 }), fc.boolean()).map(([v, n, o]) => nest(v, n, o)) },
  { weight: 1, arbitrary: manyKeys },
  { weight: 1, arbitrary: fc.nat({ max: 2 }).map((n) => Array.from({ length: [1000, 10_000, 100_000][n]! }, (_, i) => `t${i}`)) },
);

type Path = Array<string | number>;

/** Every path into v, in document order (iterative: values may be nested thousands of levels deep). */
function paths(root: unknown): Path[] {
  const out: Path[] = [];
  const todo: Array<[unknown, Path]> = [[root, []]];
  for (let item = todo.pop(); item; item = todo.pop()) {
    const [v, at] = item;
    out.push(at);
    const children: Array<[unknown, Path]> = Array.isArray(v) ? v.map((x, i) => [x, [...at, i]])
      : v && typeof v === 'object' ? Object.entries(v).map(([k, x]) => [x, [...at, k]]) : [];
    for (let i = children.length - 1; i >= 0; i--) todo.push(children[i]!);
  }
  return out;
}

function clone(v: unknown): unknown {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

function setAt(root: unknown, path: Path, value: unknown, remove: boolean): unknown {
  if (path.length === 0) return remove ? undefined : value;
  const copy = clone(root);
  let node = copy as Record<string | number, unknown>;
  for (const p of path.slice(0, -1)) node = node[p] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (remove && Array.isArray(node)) node.splice(last as number, 1);
  else if (remove) delete node[last];
  else node[last] = value;
  return copy;
}

type Mutation =
  | { op: 'replace'; at: number; value: unknown }
  | { op: 'remove'; at: number }
  | { op: 'extra'; at: number; key: string; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('replace' as const), at: fc.nat(), value: hostileValue }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('remove' as const), at: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('extra' as const), at: fc.nat(), key: fc.oneof(strangeString, fc.constantFrom('id', 'userId', 'user_id', 'consumerId', 'tags', 'createdAt', 'pin', 'proxyHost', 'upstreamUrl', 'isAdmin')), value: hostileValue }) },
);

function applyMutation(value: unknown, m: Mutation): unknown {
  const all = paths(value);
  const at = all[m.at % all.length]!;
  if (m.op === 'replace') return setAt(value, at, m.value, false);
  if (m.op === 'remove') return at.length === 0 ? undefined : setAt(value, at, undefined, true);
  const objects = all.filter((p) => {
    let node: unknown = value;
    for (const k of p) node = (node as Record<string | number, unknown>)[k];
    return node !== null && typeof node === 'object' && !Array.isArray(node);
  });
  if (objects.length === 0) return setAt(value, at, m.value, false);
  return setAt(value, [...objects[m.at % objects.length]!, m.key], m.value, false);
}

/** One to three mutations of a valid-ish value. */
export function mutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 3 }))
    .map(([v, ms]) => ms.reduce<unknown>((acc, m) => applyMutation(acc, m), v));
}

/** Text that is not JSON, nearly JSON, or JSON with prototype keys that JSON.stringify would never write. */
function rawBodies(valid: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  const text = valid.map((v) => JSON.stringify(v) ?? 'null');
  return fc.oneof(
    fc.constantFrom('', ' ', 'not json', '{', '[', '{"a":', '{"a":1,}', "{'a':1}", '{"a":1}{"b":2}', 'NaN', 'Infinity', '-', '0x10',
      '\uFEFF{}', '{"a":"\\ud800"}', '{"a":"\\u0000"}', '"\\u0000"', '{"a":1e999999}', '[1,2', '\u0000', '{"__proto__":null}'),
    text.map((s) => s.slice(0, Math.max(0, s.length - 1))),
    text.map((s) => `${s}garbage`),
    text.map((s) => (s.startsWith('{') && s.length > 2 ? `{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},${s.slice(1)}` : s)),
    text.map((s) => (s.startsWith('{') && s.length > 2 ? `{${s.slice(1, -1)},${s.slice(1, -1)}}` : s)), // every key twice
    fc.string({ unit: 'binary', maxLength: 200 }),
  );
}

/** What a route's body looks like: mostly valid-ish or mutated JSON, sometimes random JSON, raw text or nothing. */
export function bodyFor(valid: fc.Arbitrary<unknown> | undefined): fc.Arbitrary<FuzzBody> {
  const base = valid ?? fc.jsonValue({ maxDepth: 3 });
  return fc.oneof(
    { weight: valid ? 5 : 1, arbitrary: base.map((value): FuzzBody => ({ kind: 'json', value })) },
    { weight: valid ? 6 : 1, arbitrary: mutated(base).map((value): FuzzBody => (value === undefined ? { kind: 'none' } : { kind: 'json', value })) },
    { weight: 1, arbitrary: hostileValue.map((value): FuzzBody => ({ kind: 'json', value })) },
    { weight: 1, arbitrary: rawBodies(base).map((text): FuzzBody => ({ kind: 'raw', text })) },
    { weight: valid ? 1 : 4, arbitrary: fc.constant<FuzzBody>({ kind: 'none' }) },
  );
}
