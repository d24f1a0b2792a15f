// The one way a management response is written. The spec says every management endpoint returns one JSON document
// and nothing is cached, so the header set is fixed here instead of being left to express's res.send (which would
// add an ETag and answer conditional requests with 304).
import type { ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body ?? null);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(payload);
}
