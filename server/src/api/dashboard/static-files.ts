// The dashboard (dashboard/, a static single-page app) served by the API process at `/`, so that the first PAT can be
// issued in a browser on the API port. Only GET of files under the built folder; /api/... never reaches here. The
// Content-Security-Policy allows nothing but this origin's own scripts, styles and API: no inline script, no
// third-party host (the 2FA QR code is drawn in the page), no framing.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sendJson } from '../../http/json-response.ts';

export const DASHBOARD_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "font-src 'self'", "manifest-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

const HEADERS: Record<string, string> = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

export const DASHBOARD_NOT_BUILT = 'The dashboard is not built: run `npm run build` (or `npm start`, which builds it)';

export function dashboardFiles(dir: string): RequestHandler {
  const serve = express.static(dir, {
    index: 'index.html', dotfiles: 'ignore', etag: false, fallthrough: true, redirect: false,
    setHeaders(res, path) {
      for (const [k, v] of Object.entries(HEADERS)) res.setHeader(k, v);
      // Vite names every asset by its content hash: they never change; index.html names the current ones.
      res.setHeader('cache-control', path.includes(`${join('assets', '')}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'GET' || req.path.startsWith('/api/') || req.path === '/api') return next();
    if (req.path === '/' && !existsSync(join(dir, 'index.html'))) {
      sendJson(res, 404, { error: DASHBOARD_NOT_BUILT });
      return;
    }
    serve(req, res, next);
  };
}
