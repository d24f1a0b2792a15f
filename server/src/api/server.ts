// The management API's HTTP server: the express app of express-app.ts on a plain node:http server (app.ts starts and
// stops it). The gateway does not use express; see docs/decisions/0005-express-for-the-management-api.md.
import { createServer, type Server } from 'node:http';
import { answerParseErrorsInJson } from '../http/parse-errors.ts';
import type { Router } from '../http/router.ts';
import type { Services } from '../services.ts';
import { createApiApp } from './express-app.ts';
import { parsableTargetsOnly } from './lifecycle/request-url.ts';

/** The sign-in route runs the same origin check itself (login CSRF); it imports it from here. */
export { checkOrigin } from './lifecycle/origin.ts';

export function createApiServer(router: Router, s: Services): Server {
  const server = createServer(parsableTargetsOnly(createApiApp(router, s)));
  server.keepAliveTimeout = 5000;
  answerParseErrorsInJson(server);
  return server;
}
