// What every answer of the management API must look like, whatever was sent: no 5xx but the documented ones, JSON
// always, `{error: string}` in the spec's style for every error, the contract's schema for every success, no secret
// echoed, and nothing of another user's reachable.
import { RESPONSES } from '@tollgate/contract';
import type { z } from 'zod';
import type { RawResponse } from './client.ts';
import type { FuzzRoute } from './routes.ts';
import { CANARY } from './hints.ts';

/** 5xx answers the spec documents for these routes (and nothing else); a 503 would need a datastore down. */
const DOCUMENTED_5XX: Record<string, number[]> = {
  'POST /api/mcp/:id/tools': [502], // discovery: the upstream is unreachable or answers garbage
};

const MESSAGES_401 = new Set(['Not authenticated', 'Invalid personal access token', 'MFA required', 'Invalid email or password']);
const MESSAGES_404 = new Set(['Endpoint not found', 'MCP server not found', 'LLM proxy not found', 'Key not found', 'Resource not found',
  'Log not found']);

/** The route a request really reached: the path as the API canonicalises it, matched against the route table. */
export function routeOf(routes: FuzzRoute[], method: string, path: string): FuzzRoute | undefined {
  if (!URL.canParse(path, 'http://x')) return undefined;
  const segs = new URL(path, 'http://x').pathname.split('/').filter(Boolean);
  return routes.find((r) => {
    if (r.method !== method) return false;
    const ps = r.pattern.split('/').filter(Boolean);
    return ps.length === segs.length && ps.every((p, i) => p.startsWith(':') || p === segs[i]);
  });
}

export function messageProblem(status: number, msg: string): string | undefined {
  if (msg.length === 0) return 'empty error message';
  if (msg.length > 1000) return `error message of ${msg.length} characters`;
  if (msg !== msg.trim()) return 'error message with leading or trailing white space';
  if (/\n\s+at |\.[cm]?[jt]s:\d|node_modules|\/work\/|\[object Object\]|SQLSTATE|syntax error at or near/i.test(msg)) return 'error message shows internals';
  // Discovery's 502 relays how the caller's own upstream failed (ECONNREFUSED and its address); nothing else may.
  if (status !== 502 && /ECONN|EHOSTUNREACH|ETIMEDOUT/.test(msg)) return 'error message shows a connection error';
  if (status === 401 && !MESSAGES_401.has(msg)) return 'unexpected 401 message';
  if (status === 404 && !MESSAGES_404.has(msg)) return 'unexpected 404 message';
  if (status === 500) return 'a 500';
  return undefined;
}

function schemaOf(route: FuzzRoute): z.ZodType | undefined {
  return (RESPONSES as Record<string, z.ZodType>)[route.name];
}

function errorProblems(res: RawResponse, body: unknown): string[] {
  const keys = body && typeof body === 'object' ? Object.keys(body) : [];
  const msg = (body as { error?: unknown } | null)?.error;
  if (keys.length !== 1 || typeof msg !== 'string') return ['error body is not exactly {error: string}'];
  const p = messageProblem(res.status, msg);
  return p ? [p] : [];
}

function successProblems(reached: FuzzRoute | undefined, body: unknown): string[] {
  const r = reached ? schemaOf(reached)?.safeParse(body) : undefined;
  return r && !r.success ? [`2xx outside the response schema: ${r.error.issues[0]?.message}`] : [];
}

/** Problems with one answer (empty when it is fine). `reached` is the route the request really hit, if any. */
export function answerProblems(reached: FuzzRoute | undefined, res: RawResponse): string[] {
  const out: string[] = [];
  const allowed5xx = reached ? DOCUMENTED_5XX[reached.name] ?? [] : [];
  if (res.status >= 500 && !allowed5xx.includes(res.status)) out.push(`status ${res.status}`);
  if (!/^application\/json\b/.test(String(res.headers['content-type'] ?? ''))) out.push(`content-type ${String(res.headers['content-type'])}`);
  if (res.text.includes(CANARY)) out.push('a secret the client sent is echoed in the answer');
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return [...out, 'body is not JSON'];
  }
  if (res.status >= 400) return [...out, ...errorProblems(res, body)];
  if (res.status >= 200 && res.status < 300) return [...out, ...successProblems(reached, body)];
  return out;
}
