// GET /api/openapi.json: the generated OpenAPI document (public: it describes the API, it holds no data).
import type { Router } from '../../http/router.ts';
import type { Services } from '../../services.ts';
import { buildOpenApi } from '../openapi/document.ts';
import { PACKAGE_VERSION } from '../../version.ts';

export function registerOpenapiRoutes(r: Router, _s: Services): void {
  let cached: unknown;
  r.add('GET', '/api/openapi.json', 'public', async () => (cached ??= buildOpenApi(r, PACKAGE_VERSION)), { summary: 'The OpenAPI 3.1 document of this API' });
}
