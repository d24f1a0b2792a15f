// The management API's route table as clients see it: for each `METHOD /pattern` (`:param` segments), the zod schema
// of its JSON body (when it takes one) and of its answer. The server attaches both to its routes at start and refuses
// to start when the two tables disagree (server/src/api/routes/index.ts); the typed client (client.ts) derives its
// parameter, body and response types from the same tables, so a route exists for a client exactly when it does here.
import type { z } from 'zod';
import { RESPONSES } from '../responses.ts';
import { codeBodySchema, loginBodySchema } from '../session.ts';
import { createKeyBodySchema, updateKeyBodySchema } from '../keys.ts';
import { budgetSchema, createLlmProxySchema, patchLlmProxySchema } from '../llm.ts';
import { jwksTestSchema, mcpCreateSchema, mcpPatchSchema, resourceCreateSchema, resourcePatchSchema, rulesPutSchema, toolApproveSchema } from '../mcp.ts';

export type RouteKey = keyof typeof RESPONSES;

/** The JSON body of each route that takes one; routes not named here take none. */
export const REQUEST_BODIES = {
  'POST /api/auth/login': loginBodySchema,
  'POST /api/2fa/verify': codeBodySchema,
  'POST /api/2fa/disable': codeBodySchema,
  'POST /api/2fa/challenge': codeBodySchema,
  'POST /api/keys': createKeyBodySchema,
  'PATCH /api/keys/:id': updateKeyBodySchema,
  'POST /api/mcp': mcpCreateSchema,
  'PATCH /api/mcp/:id': mcpPatchSchema,
  'POST /api/mcp/jwks/test': jwksTestSchema,
  'POST /api/mcp/:id/tool-changes/approve': toolApproveSchema,
  'POST /api/mcp/:id/resources': resourceCreateSchema,
  'PATCH /api/mcp/:id/resources/:rid': resourcePatchSchema,
  'PUT /api/mcp/:id/rules': rulesPutSchema,
  'PUT /api/llm/:id/rules': rulesPutSchema,
  'POST /api/llm': createLlmProxySchema,
  'PATCH /api/llm/:id': patchLlmProxySchema,
  'PUT /api/llm/:id/keys/:credId/budget': budgetSchema,
} as const satisfies { [K in RouteKey]?: z.ZodType };

type BodyRoute = keyof typeof REQUEST_BODIES;

type PatternOf<K extends string> = K extends `${string} ${infer P}` ? P : never;
type ParamNames<P extends string> =
  P extends `${string}:${infer Name}/${infer Rest}` ? Name | ParamNames<`/${Rest}`>
    : P extends `${string}:${infer Name}` ? Name : never;

/** The path parameters of a route, by name: `'GET /api/llm/:id/keys/:credId/budget'` → `{ id, credId }`. */
export type ParamsOf<K extends RouteKey> = { [N in ParamNames<PatternOf<K>>]: string };
/** What a caller sends (zod input: defaults may be left out). */
export type BodyOf<K extends RouteKey> = K extends BodyRoute ? z.input<(typeof REQUEST_BODIES)[K]> : never;
/** What the route answers on success, as the contract's schema parses it. */
export type ResponseOf<K extends RouteKey> = z.output<(typeof RESPONSES)[K]>;

export type QueryValue = string | number | boolean | undefined;

export type CallOptions<K extends RouteKey> =
  ([ParamNames<PatternOf<K>>] extends [never] ? { params?: never } : { params: ParamsOf<K> })
  & (K extends BodyRoute ? { body: BodyOf<K> } : { body?: never })
  & { query?: Record<string, QueryValue> };

/** No second argument when a route needs neither parameters nor a body. */
export type CallArgs<K extends RouteKey> = object extends CallOptions<K> ? [options?: CallOptions<K>] : [options: CallOptions<K>];

export function bodySchemaOf(route: RouteKey): z.ZodType | undefined {
  return (REQUEST_BODIES as Partial<Record<RouteKey, z.ZodType>>)[route];
}

export function responseSchemaOf(route: RouteKey): z.ZodType {
  return RESPONSES[route];
}

/**
 * The path of a call: each `:param` replaced by its value, percent-encoded (an id with `/`, `?` or `..` stays one
 * segment), and the query string. An empty or missing parameter is an error value: it would address another route.
 */
export function pathOf(route: RouteKey, params: Record<string, string> | undefined, query?: Record<string, QueryValue>): { ok: true; path: string } | { ok: false; message: string } {
  const pattern = route.slice(route.indexOf(' ') + 1);
  let missing: string | undefined;
  const path = pattern.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
    const v = params?.[name];
    if (typeof v !== 'string' || v === '') missing ??= name;
    return encodeURIComponent(v ?? '');
  });
  if (missing) return { ok: false, message: `${route}: the path parameter ${missing} is empty` };
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) qs.set(k, String(v));
  const s = qs.toString();
  return { ok: true, path: s ? `${path}?${s}` : path };
}
