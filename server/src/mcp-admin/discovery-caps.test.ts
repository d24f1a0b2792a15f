// Caps on a discovered catalog (discovery-caps.ts) through POST /api/mcp/:id/tools, against a real MCP server on the
// official SDK whose tools/list the test controls: too many tools, one tool too large, a catalog too large in total
// and a cursor that never ends are each a 502 naming the cap, and the previous catalog stays.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { MAX_CATALOG_BYTES, MAX_PAGES, MAX_TOOL_BYTES, MAX_TOOLS } from './discovery-caps.ts';

/** What the upstream's tools/list serves: pages of `pageSize` tools; `endless` offers a next page forever. */
interface Catalog { tools: Tool[]; pageSize: number; endless: boolean; listCalls: number }

interface CatalogUpstream { url: string; catalog: Catalog; close(): Promise<void> }

/** A stateless MCP server on the SDK's low-level Server, so that tools/list pages can be served as the test wants. */
async function startCatalogUpstream(): Promise<CatalogUpstream> {
  const catalog: Catalog = { tools: [], pageSize: 10_000, endless: false, listCalls: 0 };
  const http: HttpServer = createServer((req, res) => {
    const server = new Server({ name: 'catalog-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, (r) => {
      catalog.listCalls++;
      const from = Number(r.params?.cursor ?? 0);
      const tools = catalog.endless ? catalog.tools.slice(0, catalog.pageSize) : catalog.tools.slice(from, from + catalog.pageSize);
      const next = from + catalog.pageSize;
      return { tools, ...(catalog.endless || next < catalog.tools.length ? { nextCursor: String(next) } : {}) };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    server.connect(transport).then(() => transport.handleRequest(req, res)).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`, catalog,
    async close() {
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    },
  };
}

const tool = (name: string, description = 'A tool'): Tool => ({ name, description, inputSchema: { type: 'object', properties: {} } });
const tools = (n: number, description?: string) => Array.from({ length: n }, (_, i) => tool(`tool_${i}`, description));

let t: TestApp;
let up: CatalogUpstream;
let u: TestUser;

before(async () => {
  t = await startTestApp();
  up = await startCatalogUpstream();
  u = await t.createUser();
});
after(async () => {
  await up.close();
  await t.close();
});

async function serverWithCatalog(n: number): Promise<string> {
  up.catalog.tools = tools(n);
  up.catalog.pageSize = 10_000;
  up.catalog.endless = false;
  const c = await t.request('POST', '/api/mcp', { token: u.pat, body: { name: 'catalog', url: up.url } });
  assert.equal(c.status, 201, c.text);
  const id = c.body.server.id as string;
  const d = await t.request('POST', `/api/mcp/${id}/tools`, { token: u.pat });
  assert.equal(d.status, 200, d.text);
  assert.equal(d.body.tools.length, n);
  return id;
}

/** Discovery is a 502 with this message, and the stored catalog (and the gateway's) still has `kept` tools. */
async function refused(id: string, message: string, kept: number): Promise<void> {
  const r = await t.request('POST', `/api/mcp/${id}/tools`, { token: u.pat });
  assert.deepEqual([r.status, r.body], [502, { error: `Upstream MCP server error: ${message}` }]);
  assert.equal((await t.request('GET', `/api/mcp/${id}`, { token: u.pat })).body.tools.length, kept);
  const proxy = t.app.gateway!.store.current.proxies.get(id);
  assert.equal(proxy?.kind === 'mcp' ? proxy.tools.length : -1, kept);
}

test('the caps are 1000 tools, 64 KiB per tool, 2 MiB per catalog and 50 pages', () => {
  assert.deepEqual([MAX_TOOLS, MAX_TOOL_BYTES, MAX_CATALOG_BYTES, MAX_PAGES], [1000, 65_536, 2_097_152, 50]);
});

test('a catalog of 1000 tools is stored; 1001 is a 502 naming the cap, and the previous catalog stays', async () => {
  const id = await serverWithCatalog(1000);
  up.catalog.tools = tools(1001);
  await refused(id, 'the tool catalog has more than 1000 tools; an MCP server may expose at most 1000', 1000);
  // Spread over pages, the count is the same.
  up.catalog.pageSize = 100;
  await refused(id, 'the tool catalog has more than 1000 tools; an MCP server may expose at most 1000', 1000);
});

test('one tool definition over 64 KiB is a 502 naming the tool and the cap', async () => {
  const id = await serverWithCatalog(3);
  up.catalog.tools = [tool('small'), tool('huge', 'x'.repeat(70_000)), tool('after')];
  const size = Buffer.byteLength(JSON.stringify({ name: 'huge', description: 'x'.repeat(70_000), inputSchema: { type: 'object', properties: {} } }));
  await refused(id, `tool "huge" is ${size} bytes; one tool definition may be at most 65536 bytes`, 3);
});

test('a catalog over 2 MiB in total is a 502 naming the cap, though each tool is within its own', async () => {
  const id = await serverWithCatalog(2);
  up.catalog.tools = tools(40, 'd'.repeat(60_000));
  await refused(id, 'the tool catalog is larger than 2097152 bytes; a catalog may be at most 2097152 bytes', 2);
});

test('a cursor that never ends is a 502 after 50 pages, not a catalog of repeated pages', async () => {
  const id = await serverWithCatalog(1);
  up.catalog.tools = tools(1);
  up.catalog.pageSize = 1;
  up.catalog.endless = true;
  const calls = up.catalog.listCalls;
  await refused(id, 'the tool catalog has more than 50 pages; discovery follows at most 50', 1);
  assert.equal(up.catalog.listCalls - calls, 50);
});
