// The Kubernetes API as the operator uses it: JSON requests and line-delimited watch streams over HTTPS, with the
// credentials and TLS settings that @kubernetes/client-node resolves from the kubeconfig (KUBECONFIG, ~/.kube/config
// or the in-cluster service account). Errors come back as values with the API server's Status reason and message.
import https from 'node:https';
import http from 'node:http';
import { createInterface } from 'node:readline';
import type { KubeConfig } from '@kubernetes/client-node';

export type KubeResult<T> =
  | { ok: true; status: number; body: T }
  | { ok: false; status: number; reason: string; message: string };

export type PatchType = 'merge' | 'json' | 'apply';
const PATCH_CONTENT_TYPE: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Record<string, unknown>;
}

export interface RequestOptions {
  body?: unknown;
  patch?: PatchType;
  query?: Record<string, string | number | boolean | undefined>;
  timeoutMs?: number;
}

export class KubeClient {
  readonly server: URL;
  readonly #kc: KubeConfig;

  constructor(kc: KubeConfig) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster (set KUBECONFIG, or run in a cluster)');
    this.server = new URL(cluster.server);
    this.#kc = kc;
  }

  get<T>(path: string, query?: RequestOptions['query']) { return this.request<T>('GET', path, { query }); }
  create<T>(path: string, body: unknown) { return this.request<T>('POST', path, { body }); }
  replace<T>(path: string, body: unknown) { return this.request<T>('PUT', path, { body }); }
  patch<T>(path: string, body: unknown, patch: PatchType = 'merge', query?: RequestOptions['query']) {
    return this.request<T>('PATCH', path, { body, patch, query });
  }
  delete<T>(path: string, body?: unknown) { return this.request<T>('DELETE', path, { body }); }

  async request<T>(method: string, path: string, o: RequestOptions = {}): Promise<KubeResult<T>> {
    const payload = o.body === undefined ? undefined : Buffer.from(JSON.stringify(o.body));
    let res: { status: number; text: string };
    try {
      res = await this.#send(method, path, o, payload);
    } catch (err) {
      return { ok: false, status: 0, reason: 'Unreachable', message: `cannot reach the Kubernetes API at ${this.server.origin}: ${(err as Error).message}` };
    }
    return resultOf<T>(res);
  }

  /** One request with its serialised body (if any); the answer's status and text, whatever the status. */
  async #send(method: string, path: string, o: RequestOptions, payload: Buffer | undefined): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (payload) {
      headers['content-type'] = o.patch ? PATCH_CONTENT_TYPE[o.patch] : 'application/json';
      headers['content-length'] = String(payload.length);
    }
    const req = await this.#open(method, this.#url(path, o.query), headers);
    return new Promise((resolve, reject) => {
      req.setTimeout(o.timeoutMs ?? 30_000, () => req.destroy(new Error('the request timed out')));
      req.on('error', reject);
      req.on('response', (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        r.on('error', reject);
      });
      req.end(payload);
    });
  }

  /**
   * Streams a watch: `onEvent` gets each event as it arrives. Resolves when the stream ends (the server closes watches
   * after their timeout, or `signal` aborts), with the HTTP status when the server refused the watch itself.
   */
  async watch(path: string, query: RequestOptions['query'], onEvent: (e: WatchEvent) => void, signal: AbortSignal): Promise<{ status: number; error?: string }> {
    let req: http.ClientRequest;
    try {
      req = await this.#open('GET', this.#url(path, { ...query, watch: true }), { accept: 'application/json' });
    } catch (err) {
      return { status: 0, error: (err as Error).message };
    }
    return new Promise((resolve) => {
      let settled = false;
      const finish = (r: { status: number; error?: string }) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', abort);
        req.destroy();
        resolve(r);
      };
      const abort = () => finish({ status: 200, error: 'aborted' });
      if (signal.aborted) return abort();
      signal.addEventListener('abort', abort);
      req.on('error', (err) => finish({ status: 0, error: err.message }));
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => finish({ status, error: Buffer.concat(chunks).toString('utf8').slice(0, 300) }));
          return;
        }
        const lines = createInterface({ input: res, crlfDelay: Infinity });
        lines.on('line', (line) => {
          if (!line.trim()) return;
          let event: WatchEvent;
          try { event = JSON.parse(line) as WatchEvent; } catch { return; }
          onEvent(event);
        });
        lines.on('close', () => finish({ status }));
        // readline re-emits the response's error (a reset, or our own destroy on abort); unhandled, it kills the process.
        lines.on('error', (err) => finish({ status: 0, error: err.message }));
        res.on('error', (err) => finish({ status: 0, error: err.message }));
      });
      req.end();
    });
  }

  #url(path: string, query?: RequestOptions['query']): URL {
    const u = new URL(this.server.pathname.replace(/\/+$/, '') + path, this.server);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u;
  }

  async #open(method: string, url: URL, headers: Record<string, string>): Promise<http.ClientRequest> {
    const opts: https.RequestOptions = { method, headers: { ...headers } };
    // Fills in the CA, client certificate or bearer token (refreshing exec and service-account tokens as needed).
    await this.#kc.applyToHTTPSOptions(opts);
    const transport = url.protocol === 'http:' ? http : https;
    return transport.request(url, opts);
  }
}

/** A 2xx answer's parsed body, or the Status object's reason and message (the raw text when it is not JSON). */
function resultOf<T>(res: { status: number; text: string }): KubeResult<T> {
  let body: unknown;
  try { body = res.text ? JSON.parse(res.text) : undefined; } catch { body = undefined; }
  if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, body: body as T };
  const s = (body ?? {}) as { reason?: string; message?: string };
  return { ok: false, status: res.status, reason: s.reason ?? String(res.status), message: s.message ?? res.text.slice(0, 300) };
}
