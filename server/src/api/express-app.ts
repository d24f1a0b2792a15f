// The management API's request lifecycle, assembled once at start (server.ts puts it on a node:http server, behind a
// guard that answers unparsable request targets with 404):
//   canonical path -> method filter -> route: context -> auth requirement (+ origin check) -> handler -> JSON reply
//   -> the dashboard's static files (GET outside /api) -> 404 for what no route took -> one error middleware.
// The routes come from the route table (http/router.ts) that the route modules fill and the OpenAPI document reads.
import express, { type Express } from 'express';
import { jsonBodyReader } from '../http/body.ts';
import type { Method, Router } from '../http/router.ts';
import type { Services } from '../services.ts';
import { authMiddleware } from './lifecycle/authenticate.ts';
import { beginRequest } from './lifecycle/context.ts';
import { errorMiddleware } from './lifecycle/error-middleware.ts';
import { runHandler } from './lifecycle/handler.ts';
import { notFound, onlyRoutedMethods } from './lifecycle/not-found.ts';
import { canonicalPath } from './lifecycle/request-url.ts';
import { dashboardFiles } from './dashboard/static-files.ts';

const VERB = { GET: 'get', POST: 'post', PUT: 'put', PATCH: 'patch', DELETE: 'delete' } as const satisfies Record<Method, string>;

export function createApiApp(router: Router, s: Services): Express {
  const app = express();
  // Settings come first: express builds its router from them on the first route.
  app.disable('x-powered-by');
  app.set('etag', false); // responses are not cached (spec); json-response.ts sets cache-control: no-store
  app.set('trust proxy', false); // the client IP is the socket's peer, as the audit events have always recorded it
  app.set('query parser', false); // handlers read ctx.query (URLSearchParams); nothing reads req.query
  app.set('case sensitive routing', true); // `/API/mcp` has never been /api/mcp

  const readBody = jsonBodyReader();
  const routes = router.list();
  app.use(canonicalPath);
  app.use(onlyRoutedMethods(new Set(routes.map((r) => r.method))));
  for (const route of routes) {
    app[VERB[route.method]](route.pattern, beginRequest(readBody), ...authMiddleware(route.auth, s), runHandler(route, s));
  }
  app.use(dashboardFiles(s.config.dashboardDir));
  app.use(notFound);
  app.use(errorMiddleware(s));
  return app;
}
