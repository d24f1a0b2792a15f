// The OpenAPI 3.1 document, generated from the router's routes and the zod schemas attached to them (one schema,
// many surfaces). Served at /api/openapi.json and checked into docs/openapi.json (`npm run gen`; a test fails when
// the checked-in copy is stale).
import { z } from 'zod';
import type { Route, Router } from '../../http/router.ts';
import { ruleSchema } from '@tollgate/contract';
import { inboundAuthSchema } from '@tollgate/contract';

const ERROR = { type: 'object', required: ['error'], properties: { error: { type: 'string' } }, additionalProperties: false };

function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

function openApiPath(pattern: string): string {
  return pattern.replace(/:([a-zA-Z]+)/g, '{$1}');
}

function security(route: Route): Array<Record<string, string[]>> {
  switch (route.auth) {
    case 'public': return [];
    case 'user': return [{ pat: [] }, { session: [] }];
    default: return [{ session: [] }];
  }
}

function operation(route: Route): Record<string, unknown> {
  const params = route.segments.filter((s) => s.startsWith(':')).map((s) => ({
    name: s.slice(1), in: 'path', required: true, schema: { type: 'string' },
  }));
  const ok = String(route.meta.status ?? 200);
  const op: Record<string, unknown> = {
    summary: route.meta.summary ?? `${route.method} ${route.pattern}`,
    security: security(route),
    responses: {
      [ok]: { description: 'Success', content: { 'application/json': { schema: route.meta.response ? jsonSchema(route.meta.response, 'output') : { type: 'object' } } } },
      default: { description: 'Error (`{ error: <message> }`; the status says which)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
  };
  if (params.length) op.parameters = params;
  if (route.meta.body) op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(route.meta.body) } } };
  if (route.auth === 'session') op.description = 'Dashboard session only: a PAT gets 403.';
  return op;
}

export function buildOpenApi(router: Router, version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const routes = [...router.list()].sort((a, b) => a.pattern.localeCompare(b.pattern) || a.method.localeCompare(b.method));
  for (const r of routes) {
    const p = (paths[openApiPath(r.pattern)] ??= {});
    p[r.method.toLowerCase()] = operation(r);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Tollgate management API', version, description: 'Generated from the zod schemas in server/src. Do not edit by hand: run `npm run gen`.' },
    servers: [{ url: 'http://127.0.0.1:8080' }],
    paths,
    components: {
      securitySchemes: {
        pat: { type: 'http', scheme: 'bearer', description: 'Personal access token (svc_pat_...)' },
        session: { type: 'apiKey', in: 'cookie', name: 'tollgate_session' },
      },
      schemas: {
        Error: ERROR,
        Rule: jsonSchema(ruleSchema),
        InboundAuth: jsonSchema(inboundAuthSchema),
      },
    },
  };
}
