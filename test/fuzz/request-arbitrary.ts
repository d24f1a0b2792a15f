// One generated management request: a route, its path parameters (real ids of the caller or of another user, random
// uuids, traversal strings, encoded NULs), a query string, a credential, headers and a body.
import fc from 'fast-check';
import { bodyFor, shortStrangeString, type FuzzBody } from './hostile.ts';
import { valueFromSchema, type Hint } from './schema-arbitrary.ts';
import type { FuzzRoute } from './routes.ts';
import type { Owner, RefKind } from './world.ts';

export type ParamValue = { kind: 'ref'; owner: Owner; pat: boolean; n: number } | { kind: 'raw'; value: string };

export type Credential = 'pat' | 'session' | 'none' | 'junk' | 'unknown-pat' | 'client-key' | 'pat-and-cookie' | 'basic';

export interface FuzzRequest {
  route: FuzzRoute;
  params: ParamValue[];
  /** When set, path params that belong together (a resource and its server) name the same object. */
  coherent: boolean;
  query: Array<[string, string]>;
  credential: Credential;
  contentType: string | undefined;
  headers: Record<string, string>;
  body: FuzzBody;
}

/** Path segments that try to leave their parameter, or that no id should survive. Sent exactly as written. */
export const TRAVERSALS = [
  '..', '.', '%2e%2e', '%2E%2E%2F', '..%2f..%2fapi%2fkeys', '..%2F..%2F..%2Fapi%2Fprofile', '..%5c..%5capi%5ckeys', '%252e%252e%252f',
  '%c0%ae%c0%ae%2f', '..%00', '%00', 'x%00y', '%2500', '%', '%zz', '%ff', '%ed%a0%80', '..;', ';x', 'a%2fb', '%3f', '%23', '*', 'null',
  'undefined', '0', '-1', '00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF', '{00000000-0000-4000-8000-000000000000}',
  '%u002e%u002e', '..%252f', '.%2e/', 'x'.repeat(10_000),
];

const QUERY_NAMES = ['tool', 'months', 'days', 'before', 'all', 'limit', 'page', 'event_type', 'from', 'to', 'bucket', '__proto__', 'x'];
const QUERY_VALUES = ['', '0', '-1', '1', '12', '50', '500', '501', '1000000', '1e3', '1.5', 'NaN', 'true', 'false', 'hour', 'day',
  '20250101', '20251399', '99999999999999999999', '2147483648', 'echo', '*', '%00', '%', 'a'.repeat(5000), '%F0%9F%A6%84', '..%2f'];

/** Percent-encodes the UTF-8 bytes (a lone surrogate becomes U+FFFD's; encodeURIComponent would throw). */
function encodedString(s: string): string {
  return [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`)).join('');
}

const rawParam: fc.Arbitrary<ParamValue> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TRAVERSALS) },
  { weight: 2, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: shortStrangeString.map(encodedString) },
).map((value) => ({ kind: 'raw' as const, value }));

const refParam: fc.Arbitrary<ParamValue> = fc.record({
  kind: fc.constant('ref' as const),
  owner: fc.constantFrom<Owner>('own', 'own', 'own', 'other'),
  pat: fc.boolean(),
  n: fc.nat(1000),
});

const paramArb = fc.oneof({ weight: 5, arbitrary: refParam }, { weight: 2, arbitrary: rawParam });

/** Queries the routes accept, so that the code behind their validation runs too. */
const USEFUL_QUERIES: Array<Array<[string, string]>> = [
  [['all', 'true']], [['before', '20250101']], [['before', '99991231']], [['days', '14']], [['months', '12']], [['tool', 'echo']],
  [['limit', '50']], [['bucket', 'hour']], [['bucket', 'day'], ['from', '0'], ['to', '4102444800']], [['page', '2'], ['limit', '10']],
  [['event_type', 'deny']],
];

const queryArb: fc.Arbitrary<Array<[string, string]>> = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.tuple(fc.constantFrom(...QUERY_NAMES), fc.oneof(fc.constantFrom(...QUERY_VALUES), shortStrangeString.map(encodedString))), { maxLength: 4 }) },
  { weight: 2, arbitrary: fc.constantFrom(...USEFUL_QUERIES) },
);

const credentialArb: fc.Arbitrary<Credential> = fc.oneof(
  { weight: 14, arbitrary: fc.constant<Credential>('pat') },
  { weight: 4, arbitrary: fc.constant<Credential>('session') },
  { weight: 1, arbitrary: fc.constantFrom<Credential>('none', 'junk', 'unknown-pat', 'client-key', 'pat-and-cookie', 'basic') },
);

const contentTypeArb = fc.oneof(
  { weight: 12, arbitrary: fc.constant<string | undefined>('application/json') },
  { weight: 1, arbitrary: fc.constantFrom<string | undefined>(undefined, 'text/plain', 'application/json; charset=utf-16', 'application/merge-patch+json',
    'application/x-www-form-urlencoded', 'APPLICATION/JSON', 'application/json; charset="', 'application/jsonx', 'multipart/form-data; boundary=x') },
);

const headersArb: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 10, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.constantFrom<Record<string, string>>(
    { origin: 'http://evil.example' }, { origin: 'null' }, { 'x-forwarded-for': '127.0.0.1, ::1' }, { 'content-encoding': 'gzip' },
    { 'content-encoding': 'identity' }, { accept: 'text/html' }, { 'x-http-method-override': 'DELETE' }, { 'transfer-encoding': 'chunked' },
    { expect: '100-continue' }, { cookie: 'tollgate_session=%00; tollgate_session=x' }, { authorization: 'Bearer' },
  ) },
);

/** The kind of object a path parameter names in this route. */
export function refKindOf(route: FuzzRoute, param: string, pat: boolean): Exclude<RefKind, 'totp'> {
  if (param === 'rid') return 'res';
  if (param === 'logId') return 'log';
  if (param === 'credId') return pat ? 'pat' : 'key';
  if (route.pattern.startsWith('/api/keys')) return pat ? 'pat' : 'key';
  return route.pattern.startsWith('/api/llm') ? 'llm' : 'mcp';
}

export function requestArbitrary(routes: FuzzRoute[], hint: Hint): fc.Arbitrary<FuzzRequest> {
  const perRoute = routes.map((route) => fc.record({
    route: fc.constant(route),
    params: fc.tuple(...route.params.map(() => paramArb)),
    coherent: fc.boolean(),
    query: queryArb,
    credential: credentialArb,
    contentType: contentTypeArb,
    headers: headersArb,
    body: bodyFor(route.body ? valueFromSchema(route.body, hint) : undefined),
  }));
  return fc.oneof(...perRoute).map((r) => described({ ...r, params: [...r.params] }));
}

function cut(v: unknown, n = 300): string {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s;
}

/** How fast-check prints a counterexample: short (the route's schema and a megabyte of body would bury it). */
function described(r: FuzzRequest): FuzzRequest {
  return Object.assign(r, {
    [fc.toStringMethod]: () => `${r.route.name} params=${cut(r.params, 200)} coherent=${r.coherent} query=${cut(r.query, 200)} credential=${r.credential} ` +
      `content-type=${r.contentType} headers=${cut(r.headers)} body=${cut(r.body)}`,
  });
}
