// LLM proxies (spec "LLM proxies"): create, list, get (with pin), patch, delete, re-resolve. Handlers only translate
// HTTP; the work lives in server/src/llm-admin/.
import { created, type Router } from '../../http/router.ts';
import {
  createLlmProxy, deleteLlmProxy, getLlmProxy, listLlmProxyRecords, reResolveLlmPin, updateLlmProxy,
} from '../../llm-admin/proxies.ts';
import type { Services } from '../../services.ts';

export function registerLlmRoutes(r: Router, s: Services): void {
  r.add('GET', '/api/llm', 'user', async (ctx) => ({
    proxies: await listLlmProxyRecords(s, ctx.auth.userId),
  }), { summary: 'List the caller\'s LLM proxies' });
  r.add('POST', '/api/llm', 'user', async (ctx) => created(await createLlmProxy(s, ctx.auth.userId, await ctx.json())),
    { summary: 'Create an LLM proxy; returns the created record', status: 201 });
  r.add('GET', '/api/llm/:id', 'user', async (ctx) => getLlmProxy(s, ctx.auth.userId, ctx.params.id!),
    { summary: 'Get one LLM proxy with its DNS pin' });
  r.add('PATCH', '/api/llm/:id', 'user', async (ctx) => updateLlmProxy(s, ctx.auth.userId, ctx.params.id!, () => ctx.json()),
    { summary: 'Update any subset of an LLM proxy; a provider change swaps upstreamUrl' });
  r.add('DELETE', '/api/llm/:id', 'user', async (ctx) => {
    await deleteLlmProxy(s, ctx.auth.userId, ctx.params.id!);
    return { deleted: true };
  }, { summary: 'Delete an LLM proxy, its gateway objects, per-key budgets and every key tag naming it' });
  r.add('POST', '/api/llm/:id/re-resolve', 'user', async (ctx) => ({ pin: await reResolveLlmPin(s, ctx.auth.userId, ctx.params.id!) }),
    { summary: 'Refresh the DNS pin of the provider host' });
}
