// A plain node:http client for the fuzzer: it sends the path exactly as given (fetch would resolve `..` segments and
// re-encode the path before the server sees it) over keep-alive connections.
import { Agent, request, type IncomingHttpHeaders } from 'node:http';

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** A reused keep-alive connection was closed by the server before it read the request. */
class ReusedSocketReset extends Error {}

export function httpClient(base: string, timeoutMs = 30_000) {
  const url = new URL(base);
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  /**
   * `openStreamMs`: an event stream that is still open after this long (an MCP GET stream stays open until the client
   * leaves) is answered with what it sent so far, and closed.
   */
  function send(r: RawRequest, o: { openStreamMs?: number } = {}): Promise<RawResponse> {
    return sendOnce(r, o).catch((err: unknown) => {
      // The server closes a keep-alive connection idle for its keepAliveTimeout (5 s). When generating a large value
      // kept this process (client and in-process server alike) busy past that, the next request can be written to a
      // connection the server is closing at the same moment; it never reached a handler, so it is sent again on a new
      // connection (node's documented retry for a reused socket).
      if (err instanceof ReusedSocketReset) return sendOnce(r, o);
      throw err;
    });
  }

  function sendOnce(r: RawRequest, o: { openStreamMs?: number }): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...r.headers };
      if (r.body) headers['content-length'] = r.body.length;
      const req = request({ host: url.hostname, port: url.port, method: r.method, path: r.path, headers, agent, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        if (o.openStreamMs !== undefined && /event-stream/.test(String(res.headers['content-type']))) {
          setTimeout(() => {
            if (res.complete) return;
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
            req.destroy();
          }, o.openStreamMs).unref();
        }
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${r.method} ${r.path.slice(0, 200)}: no answer within ${timeoutMs} ms`)));
      req.on('error', (err: NodeJS.ErrnoException) => {
        reject(req.reusedSocket && err.code === 'ECONNRESET' ? new ReusedSocketReset(err.message) : err);
      });
      req.end(r.body);
    });
  }
  return { send, close: () => agent.destroy() };
}
