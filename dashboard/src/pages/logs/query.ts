// The logs page's state lives in the hash query (`#/logs?event_type=deny&page=2`), so a reload or a shared link
// shows the same filter, page and chart. Values go to the API as written: a bad one comes back as its own 400 message.
export interface LogsQuery {
  event_type?: string;
  /** `mcp:<id>` or `llm:<id>`: the API's mcp_uuid or llm_uuid filter. */
  proxy?: string;
  tool?: string;
  model?: string;
  from?: string;
  to?: string;
  page: number;
  limit: number;
  bucket: 'hour' | 'day';
}

export const PAGE_SIZES = [25, 50, 100];

export function readQuery(q: URLSearchParams): LogsQuery {
  const opt = (k: string) => q.get(k) || undefined;
  return {
    event_type: opt('event_type'), proxy: opt('proxy'), tool: opt('tool'), model: opt('model'), from: opt('from'), to: opt('to'),
    page: Math.max(1, Math.floor(Number(q.get('page'))) || 1),
    limit: Math.floor(Number(q.get('limit'))) || 50,
    bucket: q.get('bucket') === 'day' ? 'day' : 'hour',
  };
}

/** The hash query of a state, defaults left out so links stay short. */
export function toHash(q: LogsQuery): Record<string, string | number | undefined> {
  return {
    event_type: q.event_type, proxy: q.proxy, tool: q.tool, model: q.model, from: q.from, to: q.to,
    page: q.page > 1 ? q.page : undefined, limit: q.limit !== 50 ? q.limit : undefined,
    bucket: q.bucket === 'day' ? 'day' : undefined,
  };
}

/** The API's query for a state: the proxy filter split into mcp_uuid or llm_uuid. */
export function apiQuery(q: LogsQuery): Record<string, string | number | undefined> {
  const [kind, id] = q.proxy?.split(':') ?? [];
  return {
    event_type: q.event_type, tool: q.tool, model: q.model, from: q.from, to: q.to, page: q.page, limit: q.limit,
    mcp_uuid: kind === 'mcp' ? id : undefined, llm_uuid: kind === 'llm' ? id : undefined,
  };
}
