// Hash routes (`#/mcp/<id>`): the API serves one index.html at `/`, so every page is a fragment of it and a reload
// keeps the page.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** The path after `#`, e.g. `/mcp/123`. */
  path: string;
  /** Its segments: `['mcp', '123']`. */
  parts: string[];
  /** The query after `?` in the fragment (filters and paging). */
  query: URLSearchParams;
}

export function currentRoute(): Route {
  const raw = location.hash.replace(/^#/, '') || '/';
  const [path = '/', qs = ''] = raw.split('?');
  return { path, parts: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(qs) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const on = () => setRoute(currentRoute());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

export function href(path: string, query?: Record<string, string | number | undefined>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') qs.set(k, String(v));
  const s = qs.toString();
  return `#${path}${s ? `?${s}` : ''}`;
}

export function navigate(path: string, query?: Record<string, string | number | undefined>): void {
  location.hash = href(path, query);
}
