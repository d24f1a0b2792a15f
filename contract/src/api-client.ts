// The management API as a client sees it (the Terraform provider, the operator): JSON over HTTP with the caller's PAT.
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
}

export type ApiResult<T> = { ok: true; status: number; body: T } | { ok: false; error: ApiError };

export interface ApiClientOptions {
  endpoint: string;
  token: string;
  /** Per request: a hung server must not hang the caller. */
  timeoutMs?: number;
  userAgent?: string;
}

/** The status the API answers when the object does not exist (or belongs to someone else: same answer). */
export const NOT_FOUND = 404;

export class ApiClient {
  readonly endpoint: string;
  readonly #token: string;
  readonly #timeoutMs: number;
  readonly #userAgent: string;

  constructor(o: ApiClientOptions) {
    this.endpoint = o.endpoint.replace(/\/+$/, '');
    this.#token = o.token;
    this.#timeoutMs = o.timeoutMs ?? 60_000;
    this.#userAgent = o.userAgent ?? 'tollgate-client';
  }

  get<T>(path: string): Promise<ApiResult<T>> { return this.request<T>('GET', path); }
  post<T>(path: string, body?: unknown): Promise<ApiResult<T>> { return this.request<T>('POST', path, body); }
  put<T>(path: string, body: unknown): Promise<ApiResult<T>> { return this.request<T>('PUT', path, body); }
  patch<T>(path: string, body: unknown): Promise<ApiResult<T>> { return this.request<T>('PATCH', path, body); }
  delete<T>(path: string): Promise<ApiResult<T>> { return this.request<T>('DELETE', path); }

  async request<T>(method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#token}`, accept: 'application/json', 'user-agent': this.#userAgent };
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
    if (res.ok) return { ok: true, status: res.status, body: parsed as T };
    const error = errorMessage(parsed);
    const message = error ?? (text.slice(0, 200) || res.statusText);
    return { ok: false, error: { status: res.status, message, body: { bytes: raw.byteLength, json: parsed !== undefined, errorField: error !== undefined } } };
  }
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
