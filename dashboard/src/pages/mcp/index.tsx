// MCP proxies: `#/mcp` lists them with the create form, `#/mcp/<id>` is one proxy.
import type { Route } from '../../router.ts';
import { McpDetail } from './detail.tsx';
import { McpList } from './list.tsx';

export function McpPage({ route }: { route: Route }) {
  const id = route.parts[1];
  return id ? <McpDetail key={id} id={id} /> : <McpList />;
}
