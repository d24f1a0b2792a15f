// What a proxy kind's data plane (mcp/handler.ts, llm/handler.ts) offers the gateway listener (server.ts). Kept
// apart from both so that the handlers need nothing from the listener that dispatches to them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteMatch } from './routing.ts';

export interface ProxyHandler {
  handle(req: IncomingMessage, res: ServerResponse, route: RouteMatch): Promise<void>;
  /** Waits for the requests in flight to finish, then writes what they buffered. */
  flush?(): Promise<void>;
  close?(): Promise<void>;
}
