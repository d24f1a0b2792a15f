// Every management route, registered once at start. One line per route module.
import { Router } from '../../http/router.ts';
import type { Services } from '../../services.ts';
import { registerHealthRoutes } from './health.ts';

export function buildRouter(s: Services): Router {
  const r = new Router();
  registerHealthRoutes(r, s);
  return r;
}
