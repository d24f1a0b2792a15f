// The management API as a client sees it (the Terraform provider, the operator, the tests): JSON over HTTP with the
// caller's PAT, one typed call per route of the contract (routes.ts).
import { pathOf, responseSchemaOf, type CallArgs, type QueryValue, type ResponseOf, type RouteKey } from './routes.ts';

// Errors come back as values (an ApiError with the server's status and its exact `{error}` message), never as
// exceptions, so each caller turns them into its own diagnostics (Terraform) or conditions (Kubernetes).
export interface ApiError {
  status: number;
  message: string;
  /**
   * The answer's body, when an answer with one came (not for a transport failure or a redirect): its size, whether it
   * parsed as JSON, and whether `message` is its `{error}` string. Otherwise `message` is the body's start or the
   * status text, which a caller that must not repeat an untrusted server's words (the operator's status) summarises.
   */
  body?: { bytes: number; json: boolean; errorField: boolean };
  /** The server answered success with a body its contract schema rejects (a server of another version). */
  drift?: true;
}

export type ApiResult<T> = { ok: true; status: number; body: T } | { ok: false; error: ApiError };

export interface ApiClientOptions {
  endpoint: string;
  /** A PAT. Without one the client sends no credential of its own: a browser sends its session cookie itself. */
  token?: string;
  /** Sent with every call (a session cookie outside a browser, in tests). */
  headers?: Record<string, string>;
  /** Per request: a hung server must not hang the caller. */
  timeoutMs?: number;
  userAgent?: string;
}

/** The status the API answers when the object does not exist (or belongs to someone else: same answer). */
export const NOT_FOUND = 404;

export class ApiClient {
  readonly endpoint: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #userAgent: string | undefined;

  constructor(o: ApiClientOptions) {
    this.endpoint = o.endpoint.replace(/\/+$/, '');
    this.#headers = { ...o.headers, ...(o.token ? { authorization: `Bearer ${o.token}` } : {}) };
    this.#timeoutMs = o.timeoutMs ?? 60_000;
    this.#userAgent = o.userAgent;
  }

  /**
   * One call of a route of the contract: `api.call('GET /api/keys/:id', { params: { id } })`. Parameters are encoded,
   * the body is typed by the route's body schema, and the answer is parsed with its response schema: a server whose
   * answer drifted from the contract is an error value naming the field, not a silently wrong object.
   */
  async call<K extends RouteKey>(route: K, ...[options]: CallArgs<K>): Promise<ApiResult<ResponseOf<K>>> {
    const o = (options ?? {}) as { params?: Record<string, string>; body?: unknown; query?: Record<string, QueryValue> };
    const target = pathOf(route, o.params, o.query);
    if (!target.ok) return { ok: false, error: { status: 0, message: target.message } };
    const method = route.slice(0, route.indexOf(' '));
    const r = await this.#send(method, target.path, o.body);
    if (!r.ok) return r;
    const parsed = responseSchemaOf(route).safeParse(r.body);
    if (parsed.success) return { ok: true, status: r.status, body: parsed.data as ResponseOf<K> };
    return { ok: false, error: { status: r.status, message: `${route} answered a body that does not match the contract: ${describeIssues(parsed.error.issues)}`, drift: true } };
  }

  async #send(method: string, path: string, body?: unknown): Promise<ApiResult<unknown>> {
    const headers: Record<string, string> = { ...this.#headers, accept: 'application/json' };
    // A browser sets its own (the dashboard passes none).
    if (this.#userAgent) headers['user-agent'] = this.#userAgent;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(this.endpoint + path, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(this.#timeoutMs),
        // The caller chose (and the operator checked) this endpoint; a hop elsewhere would carry the PAT, or the
        // caller's own network position, to a URL nobody checked.
        redirect: 'manual',
      });
    } catch (err) {
      return { ok: false, error: { status: 0, message: `cannot reach ${this.endpoint}: ${describeFetchError(err)}` } };
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => undefined);
      return { ok: false, error: { status: res.status, message: 'a redirect, not followed: use the URL of the management API itself' } };
    }
    const raw = new Uint8Array(await res.arrayBuffer());
    const text = new TextDecoder().decode(raw);
    const parsed = parseJson(text);
    if (res.ok) return { ok: true, status: res.status, body: parsed };
    const error = errorMessage(parsed);
    const message = error ?? (text.slice(0, 200) || res.statusText);
    return { ok: false, error: { status: res.status, message, body: { bytes: raw.byteLength, json: parsed !== undefined, errorField: error !== undefined } } };
  }
}

/** The first issues of a failed parse as `path: message`, the path in the dotted form a reader can find in the body. */
function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  const shown = issues.slice(0, 3).map((i) => `${i.path.map(String).join('.') || '(the body)'}: ${i.message}`);
  return shown.join('; ') + (issues.length > 3 ? ` (and ${issues.length - 3} more)` : '');
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try { return JSON.parse(text); } catch { return undefined; }
}

function errorMessage(body: unknown): string | undefined {
  if (body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string') return (body as { error: string }).error;
  return undefined;
}

function describeFetchError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'TimeoutError') return 'the request timed out';
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? err.message;
}
