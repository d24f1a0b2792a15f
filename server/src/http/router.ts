// A small, closed router for the management API: method + path pattern (":param" segments) to a handler with an
// auth requirement. Routes are compiled once at start; matching is a linear scan over segment arrays.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { AuthContext } from '../auth/context.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * - `user`: a PAT or a dashboard session (sessions must have passed 2FA when it is enabled)
 * - `session`: a dashboard session only; a PAT gets the spec's 403
 * - `session-pending-mfa`: a session that may still owe its 2FA challenge (the challenge itself, logout)
 * - `public`: no credential (sign-in, OpenAPI document)
 */
export type AuthRequirement = 'user' | 'session' | 'session-pending-mfa' | 'public';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  path: string;
  clientIp: string;
  /** Set for every requirement but `public` (and for `public` routes when a valid credential came along). */
  auth: AuthContext | undefined;
  /** The parsed JSON body; rejects with 400 `Invalid JSON body`. */
  json(): Promise<unknown>;
}

export interface AuthedContext extends RequestContext {
  auth: AuthContext;
}

/** A handler returns a Reply, or a plain value sent as 200 JSON. */
export class Reply {
  constructor(readonly status: number, readonly body: unknown, readonly headers: Record<string, string> = {}) {}
}
export const created = (body: unknown) => new Reply(201, body);

export type Handler<C extends RequestContext = AuthedContext> = (ctx: C) => Promise<unknown>;

/** Optional documentation of a route; the OpenAPI document is generated from it. */
export interface RouteMeta {
  summary?: string;
  /** zod schema of the JSON request body. */
  body?: z.ZodType;
  /** Documented success status (default 200). */
  status?: number;
}

export interface Route {
  method: Method;
  pattern: string;
  segments: string[];
  auth: AuthRequirement;
  handler: Handler<RequestContext>;
  meta: RouteMeta;
}

export interface Match {
  route: Route;
  params: Record<string, string>;
}

export class Router {
  private readonly routes: Route[] = [];

  add(method: Method, pattern: string, auth: 'public', handler: Handler<RequestContext>, meta?: RouteMeta): void;
  add(method: Method, pattern: string, auth: Exclude<AuthRequirement, 'public'>, handler: Handler<AuthedContext>, meta?: RouteMeta): void;
  add(method: Method, pattern: string, auth: AuthRequirement, handler: Handler<AuthedContext> | Handler<RequestContext>, meta: RouteMeta = {}): void {
    this.routes.push({ method, pattern, segments: pattern.split('/').filter(Boolean), auth, handler: handler as Handler<RequestContext>, meta });
  }

  /** Attaches documentation to a route registered elsewhere (keeps route modules free of doc plumbing). */
  describe(method: Method, pattern: string, meta: RouteMeta): void {
    const r = this.routes.find((x) => x.method === method && x.pattern === pattern);
    if (r) Object.assign(r.meta, meta);
  }

  match(method: string, path: string): Match | undefined {
    const parts = path.split('/').filter(Boolean);
    for (const route of this.routes) {
      if (route.method !== method || route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = route.segments[i]!;
        if (seg.startsWith(':')) params[seg.slice(1)] = safeDecode(parts[i]!);
        else ok = seg === parts[i];
      }
      if (ok) return { route, params };
    }
    return undefined;
  }

  list(): readonly Route[] {
    return this.routes;
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
