// MCP servers (spec "MCP servers"): CRUD with gateway objects, tool discovery, DNS re-resolve, cache drain and the
// JWKS test. Handlers only translate HTTP; the work lives in server/src/mcp-admin/.
import { created, type Router } from '../../http/router.ts';
import { checkJwks } from '../../proxies/inbound-auth.ts';
import type { Services } from '../../services.ts';
import {
  createMcpServer, deleteMcpServer, getMcpServer, listMcpServers, updateMcpServer,
} from '../../mcp-admin/servers.ts';
import { drainToolCache, refreshTools, reResolve } from '../../mcp-admin/upstream-ops.ts';
import { approveToolChanges, readToolChanges, type Actor } from '../../mcp-admin/tool-pinning.ts';
import type { AuthedContext } from '../../http/router.ts';

const actor = (ctx: AuthedContext): Actor => ({ userId: ctx.auth.userId, email: ctx.auth.email, clientIp: ctx.clientIp });

export function registerMcpRoutes(r: Router, s: Services): void {
  // Registered before the :id routes so "jwks" is never taken for an id.
  r.add('POST', '/api/mcp/jwks/test', 'user', async (ctx) => {
    const body = await ctx.json();
    const jwksJson = (body as { jwksJson?: unknown } | null)?.jwksJson;
    if (typeof jwksJson !== 'string') return { ok: false, error: 'jwksJson must be a string holding a JWKS document' };
    if (!jwksJson.trim()) return { ok: false, error: 'jwksJson is empty' };
    return checkJwks(jwksJson);
  }, { summary: 'Check a JWKS document ({ok, keys} or {ok: false, error})' });

  r.add('GET', '/api/mcp', 'user', async (ctx) => ({ servers: await listMcpServers(s, ctx.auth.userId) }),
    { summary: 'List MCP servers' });

  r.add('POST', '/api/mcp', 'user', async (ctx) => created({ server: await createMcpServer(s, ctx.auth.userId, await ctx.json()) }),
    { summary: 'Create an MCP server proxy', status: 201 });

  r.add('GET', '/api/mcp/:id', 'user', async (ctx) => getMcpServer(s, ctx.auth.userId, ctx.params.id!),
    { summary: 'One MCP server, with its DNS pin' });

  r.add('PATCH', '/api/mcp/:id', 'user', async (ctx) => updateMcpServer(s, ctx.auth.userId, ctx.params.id!, await ctx.json()),
    { summary: 'Change an MCP server (URL change re-pins; auth change reaches the gateway plugin)' });

  r.add('DELETE', '/api/mcp/:id', 'user', async (ctx) => {
    await deleteMcpServer(s, ctx.auth.userId, ctx.params.id!);
    return { deleted: true };
  }, { summary: 'Delete an MCP server: gateway objects, resources, key tags and cache go with it' });

  r.add('POST', '/api/mcp/:id/tools', 'user', async (ctx) => ({ tools: await refreshTools(s, actor(ctx), ctx.params.id!) }),
    { summary: 'Discover the upstream tools (tools/list) and pin the catalog (pending tool changes count as approved)' });

  r.add('GET', '/api/mcp/:id/tool-changes', 'user', async (ctx) => readToolChanges(s, ctx.auth.userId, ctx.params.id!),
    { summary: 'The pending tool-definition differences (tool pinning)' });

  r.add('POST', '/api/mcp/:id/tool-changes/approve', 'user', async (ctx) => approveToolChanges(s, actor(ctx), ctx.params.id!, await ctx.json()),
    { summary: 'Approve pending tool-definition differences: one, several or (without tools) all' });

  r.add('POST', '/api/mcp/:id/re-resolve', 'user', async (ctx) => ({ pin: await reResolve(s, ctx.auth.userId, ctx.params.id!) }),
    { summary: 'Refresh the DNS pin of the upstream host' });

  r.add('DELETE', '/api/mcp/:id/cache', 'user', async (ctx) => ({
    dropped: await drainToolCache(s, ctx.auth.userId, ctx.params.id!, ctx.query.get('tool')),
  }), { summary: 'Drop every cached response of one tool (?tool=<name>)' });
}
