// Caps on a discovered tool catalog (POST /api/mcp/:id/tools). The catalog is stored with the server, shipped to
// every gateway in the config snapshot and walked on every tools/list, so a hostile or broken upstream must not make
// it grow without bound. Over a cap, discovery fails with a 502 naming the cap and the previous catalog stays.
import { shownInMessage } from '@tollgate/contract';
import type { McpTool } from '../snapshot/snapshot.ts';

/** Tools one MCP server may expose (a key grant names at most 500 tools; `["*"]` reaches them all). */
export const MAX_TOOLS = 1000;
/** One tool definition (name, description, inputSchema, outputSchema, annotations as JSON), in bytes. */
export const MAX_TOOL_BYTES = 64 * 1024;
/** The whole stored catalog, in bytes. */
export const MAX_CATALOG_BYTES = 2 * 1024 * 1024;
/** tools/list pages followed; a cursor that never ends would otherwise repeat pages forever. */
export const MAX_PAGES = 50;

export class CatalogTooLarge extends Error {}

/** A tool name fit for a message, quoted and cut: the upstream, or a client's request, chooses it. */
export const shownName = (name: string) => JSON.stringify(shownInMessage(name));

/** Collects the tools of a catalog page by page, and throws CatalogTooLarge as soon as one crosses a cap. */
export class CatalogCollector {
  readonly tools: McpTool[] = [];
  private bytes = 0;

  add(tool: McpTool): void {
    if (this.tools.length >= MAX_TOOLS) {
      throw new CatalogTooLarge(`the tool catalog has more than ${MAX_TOOLS} tools; an MCP server may expose at most ${MAX_TOOLS}`);
    }
    // The definition as the upstream sent it: the fingerprint Tollgate adds is not the upstream's to pay for.
    const { fingerprint: _fp, ...definition } = tool;
    const size = Buffer.byteLength(JSON.stringify(definition));
    if (size > MAX_TOOL_BYTES) {
      throw new CatalogTooLarge(`tool ${shownName(tool.name)} is ${size} bytes; one tool definition may be at most ${MAX_TOOL_BYTES} bytes`);
    }
    this.bytes += size;
    if (this.bytes > MAX_CATALOG_BYTES) {
      throw new CatalogTooLarge(`the tool catalog is larger than ${MAX_CATALOG_BYTES} bytes; a catalog may be at most ${MAX_CATALOG_BYTES} bytes`);
    }
    this.tools.push(tool);
  }

  /** Called when the upstream still offers a next page after MAX_PAGES of them. */
  static tooManyPages(): CatalogTooLarge {
    return new CatalogTooLarge(`the tool catalog has more than ${MAX_PAGES} pages; discovery follows at most ${MAX_PAGES}`);
  }
}
