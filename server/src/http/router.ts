// The management API's route table: method + path pattern (":param" segments) to a handler with an auth requirement
// and optional documentation. Route modules fill it at start; express matches requests against it
// (api/lifecycle/app.ts) and the OpenAPI document is generated from it (api/openapi/document.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { AuthContext } from './auth-context.ts';

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
  /** zod schema of the success body (from the contract's RESPONSES). */
  response?: z.ZodType;
}

export interface Route {
  method: Method;
  pattern: string;
  segments: string[];
  auth: AuthRequirement;
  handler: Handler<RequestContext>;
  meta: RouteMeta;
}

export class Router {
  private readonly routes: Route[] = [];

  add(method: Method, pattern: string, auth: 'public', handler: Handler<RequestContext>, meta?: RouteMeta): void;
  add(method: Method, pattern: string, auth: Exclude<AuthRequirement, 'public'>, handler: Handler<AuthedContext>, meta?: RouteMeta): void;
  // The overloads above are the API (65 call sites); the implementation takes handler and meta as one tuple so the
  // signature stays within the parameter limit without changing any caller.
  add(method: Method, pattern: string, auth: AuthRequirement, ...[handler, meta = {}]: [Handler<AuthedContext> | Handler<RequestContext>, RouteMeta?]): void {
    this.routes.push({ method, pattern, segments: pattern.split('/').filter(Boolean), auth, handler: handler as Handler<RequestContext>, meta });
  }

  /** Attaches documentation to a route registered elsewhere (keeps route modules free of doc plumbing). */
  describe(method: Method, pattern: string, meta: RouteMeta): void {
    const r = this.routes.find((x) => x.method === method && x.pattern === pattern);
    if (r) Object.assign(r.meta, meta);
  }

  list(): readonly Route[] {
    return this.routes;
  }
}
