// Which requests an LLM proxy forwards (issue 20): the provider's route table (providers/<id>/index.ts `routes`),
// decided from the method and the path alone, so it can run before the body is read. Whatever is not in the table
// is refused before any upstream call: the provider key reaches the account's files, batches, fine-tuning jobs,
// stored conversations and billing too, and none of those is metered or tied to a model a key could be granted.
//
// The path is checked as sent, never resolved: a path with dot segments, empty segments (`//`), encoded dots,
// slashes, backslashes or percent signs, control characters, or characters outside RFC 3986's pchar is refused.
// The provider would resolve or decode those on its own terms, so the gateway could account one endpoint while the
// provider serves another; refusing them means the upstream path is always the provider base plus one of the
// table's paths.
import type { Endpoint, ProviderAdapter, RouteSpec } from './providers/index.ts';

export type Route =
  /** A metered call; `modelFrom` says where its model is named (RouteSpec). */
  | { use: 'call'; endpoint: Endpoint; modelFrom: 'body' | 'path' | 'upstream' }
  | { use: 'list_models' }
  | { use: 'get_model'; model: string };

export interface RouteRefusal {
  use: 'refused';
  status: 400 | 403;
  message: string;
  reason: 'invalid_path' | 'endpoint_not_allowed';
  /** For the deny event: what was asked (the path cut to PATH_SHOWN characters). */
  details: { method: string; path: string };
}

export const RouteMsg = {
  invalidPath: 'Invalid path: dot segments, empty segments and encoded dots, slashes, backslashes or percent signs are refused',
  notServed: (method: string, path: string) => `Endpoint not allowed: ${method} ${path} is not served by this LLM proxy`,
} as const;

/** Every segment non-empty and made of RFC 3986 pchar (unreserved, sub-delims, ':' '@', percent escapes). */
const PCHAR_PATH = /^(?:\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})+)+$/;
const DOT_SEGMENT = /\/\.{1,2}(?=\/|$)/;
/** Escapes of '.', '/', '\', '%' and control characters: only a path meant to be decoded into something else has them. */
const FORBIDDEN_ESCAPE = /%(?:2[EeFf5]|5[Cc]|[01][0-9A-Fa-f]|7[Ff])/;
/** How much of a refused path the answer and the event repeat. */
const PATH_SHOWN = 200;

interface Segment {
  /** A literal segment, or undefined for the model capture. */
  literal?: string;
  /** The capture's `:<operation>` suffix (Gemini). */
  op?: string;
}

interface Compiled {
  spec: RouteSpec;
  segments: Segment[];
}

function compileSegment(s: string): Segment {
  if (s === '{model}') return {};
  if (s.startsWith('{model}:')) return { op: s.slice('{model}'.length) };
  return { literal: s };
}

const tables = new WeakMap<ProviderAdapter, readonly Compiled[]>();

function tableOf(adapter: ProviderAdapter): readonly Compiled[] {
  let t = tables.get(adapter);
  if (!t) {
    t = adapter.routes.map((spec) => ({ spec, segments: spec.path.slice(1).split('/').map(compileSegment) }));
    tables.set(adapter, t);
  }
  return t;
}

function decoded(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined; // not UTF-8
  }
}

/** The model a segment captures, '' when the segment is not the pattern's, undefined when it does not decode. */
function capture(seg: Segment, raw: string): string | undefined {
  if (!seg.op) return decoded(raw);
  const colon = raw.indexOf(':');
  if (colon <= 0 || raw.slice(colon) !== seg.op) return '';
  return decoded(raw.slice(0, colon));
}

/** The model the path names ('' when there is none), or undefined when the path is not this route's. */
function match(c: Compiled, segments: readonly string[]): string | undefined {
  if (segments.length !== c.segments.length) return undefined;
  let model = '';
  for (let i = 0; i < segments.length; i++) {
    const seg = c.segments[i]!;
    const raw = segments[i]!;
    if (seg.literal !== undefined) {
      if (raw !== seg.literal) return undefined;
      continue;
    }
    const m = capture(seg, raw);
    if (!m) return undefined;
    model = m;
  }
  return model;
}

function toRoute(spec: RouteSpec, model: string): Route {
  if (spec.method === 'GET') return spec.use === 'get_model' ? { use: 'get_model', model } : { use: 'list_models' };
  const endpoint: Endpoint = { kind: spec.endpoint };
  if (spec.model === 'path') endpoint.pathModel = model;
  if (spec.stream) endpoint.pathStream = true;
  if (spec.free) endpoint.free = true;
  return { use: 'call', endpoint, modelFrom: spec.model };
}

function refuse(method: string, pathname: string, status: 400 | 403): RouteRefusal {
  const path = pathname.length > PATH_SHOWN ? `${pathname.slice(0, PATH_SHOWN)}…` : pathname;
  return status === 400
    ? { use: 'refused', status, message: RouteMsg.invalidPath, reason: 'invalid_path', details: { method, path } }
    : { use: 'refused', status, message: RouteMsg.notServed(method, path), reason: 'endpoint_not_allowed', details: { method, path } };
}

/** Whether the path may be forwarded at all (see the header comment). */
export function isCleanPath(pathname: string): boolean {
  return PCHAR_PATH.test(pathname) && !DOT_SEGMENT.test(pathname) && !FORBIDDEN_ESCAPE.test(pathname);
}

/**
 * The route a request takes, from its method and path (query removed) alone, or why it is refused. HEAD and OPTIONS
 * are in no table: a model listing is read with GET, and CORS preflights are not served (docs/llm-gateway.md).
 * Each call returns a fresh Endpoint (model_route rewrites it).
 */
export function routeOf(adapter: ProviderAdapter, method: string, pathname: string): Route | RouteRefusal {
  if (pathname !== '/' && !isCleanPath(pathname)) return refuse(method, pathname, 400);
  const segments = pathname.slice(1).split('/');
  for (const c of tableOf(adapter)) {
    if (c.spec.method !== method) continue;
    const model = match(c, segments);
    if (model !== undefined) return toRoute(c.spec, model);
  }
  return refuse(method, pathname, 403);
}

/** The operation a request is (events, lambdas): the endpoint kind, the listing or lookup, or `refused`. */
export function routeLabel(r: Route | RouteRefusal): string {
  return r.use === 'call' ? r.endpoint.kind : r.use;
}
