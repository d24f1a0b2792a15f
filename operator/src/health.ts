// /healthz (the process serves), /readyz (standing by, or leading with every cache synced) and /metrics.
import http from 'node:http';
import type { OperatorMetrics } from './metrics.ts';

export interface HealthState {
  ready(): { ok: boolean; detail: string };
}

export function startHealthServer(host: string, port: number, state: HealthState, metrics: OperatorMetrics): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
    } else if (path === '/readyz') {
      const r = state.ready();
      res.writeHead(r.ok ? 200 : 503, { 'content-type': 'text/plain' }).end(`${r.detail}\n`);
    } else if (path === '/metrics') {
      metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(err.message),
      );
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
