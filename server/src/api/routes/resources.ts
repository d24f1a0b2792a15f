// Synthetic MCP resources (spec "MCP synthetic resources"): per server under /api/mcp/:id/resources, and the
// user's whole repository at /api/resources. Listings omit `content`; the single-resource forms include it.
import { created, type AuthedContext, type Router } from '../../http/router.ts';
import type { Services } from '../../services.ts';
import {
  createResource, deleteResource, getResource, listAllResources, listResources, updateResource,
} from '../../mcp-admin/resources.ts';

const ref = (ctx: AuthedContext) => ({ userId: ctx.auth.userId, mcpId: ctx.params.id!, rid: ctx.params.rid! });

export function registerResourcesRoutes(r: Router, s: Services): void {
  r.add('GET', '/api/resources', 'user', async (ctx) => ({ resources: await listAllResources(s, ctx.auth.userId) }),
    { summary: "All of the user's synthetic resources, each with mcpId and mcpName" });

  r.add('GET', '/api/mcp/:id/resources', 'user', async (ctx) => ({ resources: await listResources(s, ctx.auth.userId, ctx.params.id!) }),
    { summary: 'Synthetic resources of one MCP server (without content)' });

  r.add('POST', '/api/mcp/:id/resources', 'user',
    async (ctx) => created(await createResource(s, ctx.auth.userId, ctx.params.id!, await ctx.json())),
    { summary: 'Add a synthetic resource', status: 201 });

  r.add('GET', '/api/mcp/:id/resources/:rid', 'user', async (ctx) => getResource(s, ref(ctx)),
    { summary: 'One synthetic resource, with its content' });

  r.add('PATCH', '/api/mcp/:id/resources/:rid', 'user',
    async (ctx) => updateResource(s, ref(ctx), await ctx.json()),
    { summary: 'Change a synthetic resource' });

  r.add('DELETE', '/api/mcp/:id/resources/:rid', 'user', async (ctx) => {
    await deleteResource(s, ref(ctx));
    return { deleted: true };
  }, { summary: 'Delete a synthetic resource' });
}
