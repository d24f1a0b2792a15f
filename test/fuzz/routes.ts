// The management API's routes as the fuzzer sees them, read from the running server's OpenAPI document (which is
// generated from the route table), so a route added to the server is fuzzed without touching this file.
import type { TestApp } from '@tollgate/testkit/harness.ts';

export type JsonSchema = { [key: string]: unknown };

export interface FuzzRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** `/api/mcp/:id`: the router's pattern, also the key of the contract's RESPONSES. */
  pattern: string;
  /** Path parameter names in order (`id`, `rid`, ...). */
  params: string[];
  /** JSON Schema of the request body, when the route documents one. */
  body: JsonSchema | undefined;
  /** Which credential the route wants: a PAT or session, a session only, or none. */
  auth: 'user' | 'session' | 'public';
  /** `METHOD /pattern`, for reports. */
  name: string;
}

interface OpenApiOperation {
  security?: Array<Record<string, unknown>>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

function authOf(op: OpenApiOperation): FuzzRoute['auth'] {
  const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
  if (schemes.length === 0) return 'public';
  return schemes.includes('pat') ? 'user' : 'session';
}

export async function loadRoutes(t: TestApp): Promise<FuzzRoute[]> {
  const doc = await t.request<{ paths: Record<string, Record<string, OpenApiOperation>> }>('GET', '/api/openapi.json');
  if (doc.status !== 200) throw new Error(`GET /api/openapi.json answered ${doc.status}`);
  const routes: FuzzRoute[] = [];
  for (const [path, ops] of Object.entries(doc.body.paths)) {
    const pattern = path.replace(/\{(\w+)\}/g, ':$1');
    const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    for (const [verb, op] of Object.entries(ops)) {
      const method = verb.toUpperCase() as FuzzRoute['method'];
      routes.push({ method, pattern, params, body: op.requestBody?.content?.['application/json']?.schema, auth: authOf(op), name: `${method} ${pattern}` });
    }
  }
  return routes.sort((a, b) => a.name.localeCompare(b.name));
}

/** Fills a route pattern with raw (already encoded as they are to be sent) segment values. */
export function fillPath(pattern: string, values: Record<string, string>): string {
  return pattern.replace(/:(\w+)/g, (_, name: string) => values[name] ?? 'missing');
}
