// What a caller may reach on one MCP proxy. Mode svc_api_key: the key's tags (spec "Key tag vocabulary"), default
// deny per proxy; a key with no `mcp:<id>:` tag reaches nothing (403 at the HTTP level), and neither does one without
// the flag `private:permissions:mcp` ("key may talk to MCP proxies"), which alone grants nothing. Upstream resources
// have no ids, so only `mcp:<id>:resource:*` reaches them; synthetic resources are also reachable by their id.
// Mode jwt: a valid token reaches every tool and resource (the issuer is the authority; firewall rules still apply).
import { MCP_FLAG_TAG } from '@tollgate/contract';
import type { Identity } from '../inbound-auth/types.ts';

export interface McpPermissions {
  /** Any access to this proxy at all. */
  readonly proxy: boolean;
  tool(name: string): boolean;
  /** A resource by synthetic id (undefined for upstream resources, which need resource:*). */
  resource(id: string | undefined): boolean;
  readonly allResources: boolean;
  readonly allTools: boolean;
}

const ALL: McpPermissions = { proxy: true, tool: () => true, resource: () => true, allResources: true, allTools: true };
const NONE: McpPermissions = { proxy: false, tool: () => false, resource: () => false, allResources: false, allTools: false };

export function permissionsFor(identity: Identity, proxyId: string): McpPermissions {
  if (identity.mode === 'jwt') return ALL;
  if (!identity.tags.includes(MCP_FLAG_TAG)) return NONE;
  const prefix = `mcp:${proxyId}:`;
  const tools = new Set<string>();
  const resources = new Set<string>();
  let proxy = false;
  for (const t of identity.tags) {
    if (!t.startsWith(prefix)) continue;
    proxy = true;
    const rest = t.slice(prefix.length);
    if (rest.startsWith('tool:')) tools.add(rest.slice(5));
    else if (rest.startsWith('resource:')) resources.add(rest.slice(9));
  }
  const allTools = tools.has('*');
  const allResources = resources.has('*');
  return {
    proxy, allTools, allResources,
    tool: (name) => allTools || tools.has(name),
    resource: (id) => allResources || (id !== undefined && resources.has(id)),
  };
}
