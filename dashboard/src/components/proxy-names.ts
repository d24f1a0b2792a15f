// Names of the caller's proxies by id, so event rows say "billing-mcp (MCP)" rather than a bare UUID. A failed read
// only costs the names: rows then show the id.
import { useMemo } from 'preact/hooks';
import { api } from '../api.ts';
import { useApi } from './use-api.ts';

export interface ProxyRef { id: string; name: string; kind: 'MCP' | 'LLM' }

export function useProxyNames(): Map<string, ProxyRef> {
  const mcp = useApi(() => api.call('GET /api/mcp'), []);
  const llm = useApi(() => api.call('GET /api/llm'), []);
  return useMemo(() => new Map<string, ProxyRef>([
    ...(mcp.data?.servers ?? []).map((s): [string, ProxyRef] => [s.id, { id: s.id, name: s.name, kind: 'MCP' }]),
    ...(llm.data?.proxies ?? []).map((s): [string, ProxyRef] => [s.id, { id: s.id, name: s.name, kind: 'LLM' }]),
  ]), [mcp.data, llm.data]);
}
