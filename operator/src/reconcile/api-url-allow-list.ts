// Which management API URLs the operator may call (TOLLGATE_OPERATOR_ALLOWED_API_URLS, --allowed-api-urls). The URL
// comes from a connection Secret that a namespace's users write; without a limit, they could point the operator (and
// the PAT it sends) at any address its pod can reach, such as cloud metadata or internal services.
//
// An entry is an origin (`https://api.example.com`: any path there) or an origin with a path prefix
// (`http://10.0.0.5:8080/tollgate`: that path and below it, whole segments only). URLs are compared parsed, never as
// strings, so `https://api.example.com.evil.net`, `https://api.example.com@evil.net` and `/tollgate-other` do not
// match. `*` alone allows every URL.

export class AllowListError extends Error {}

interface Entry { protocol: string; host: string; path: string }

/**
 * The connection Secret's url as the operator will call it: an http(s) URL without credentials (the PAT is the
 * credential), query or fragment (the API paths are appended to it). Undefined when it is not one.
 */
export function parseApiUrl(raw: string): URL | undefined {
  if (!/^https?:\/\/[^/]/i.test(raw)) return undefined;
  let url: URL;
  try { url = new URL(raw); } catch { return undefined; }
  if (url.username || url.password || url.search || url.hash || raw.includes('#') || raw.includes('?')) return undefined;
  return url;
}

/** The URL without its trailing slashes: what the API client is given and what the allow-list judges. */
export const endpointOf = (url: URL) => `${url.origin}${trimPath(url.pathname)}`;

const trimPath = (path: string) => path.replace(/\/+$/, '');

export class ApiUrlAllowList {
  /** Every URL (`*`). */
  readonly any: boolean;
  readonly #entries: readonly Entry[];

  private constructor(any: boolean, entries: Entry[]) {
    this.any = any;
    this.#entries = entries;
  }

  /** A comma-separated list of entries; throws AllowListError naming the entry it cannot use. */
  static parse(raw: string): ApiUrlAllowList {
    const items = raw.split(',').map((s) => s.trim()).filter(Boolean);
    if (items.length === 0) throw new AllowListError('needs at least one URL (or * for any)');
    if (items.includes('*')) {
      if (items.length > 1) throw new AllowListError('* allows every URL and cannot be combined with others');
      return new ApiUrlAllowList(true, []);
    }
    return new ApiUrlAllowList(false, items.map((item) => {
      const url = parseApiUrl(item);
      if (!url) throw new AllowListError(`${JSON.stringify(item)} is not an http(s) URL without credentials, query or fragment`);
      return { protocol: url.protocol, host: url.host, path: trimPath(url.pathname) };
    }));
  }

  allows(url: URL): boolean {
    if (this.any) return true;
    const path = trimPath(url.pathname);
    return this.#entries.some((e) => e.protocol === url.protocol && e.host === url.host && (path === e.path || path.startsWith(`${e.path}/`)));
  }

  toString(): string {
    return this.any ? '*' : this.#entries.map((e) => `${e.protocol}//${e.host}${e.path}`).join(',');
  }
}
