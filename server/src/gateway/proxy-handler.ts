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

/** Work in flight (requests, relayed streams), so that a flush or a stopping gateway can wait for it. */
export class InFlight {
  private readonly running = new Set<Promise<void>>();

  /** Counts `p` until it settles; returns it. */
  add(p: Promise<void>): Promise<void> {
    this.running.add(p);
    const done = () => { this.running.delete(p); };
    p.then(done, done);
    return p;
  }

  /** Resolves once everything in flight now has settled, or after `maxMs`, whichever comes first. */
  async settled(maxMs?: number): Promise<void> {
    const all = Promise.allSettled(this.running);
    if (maxMs === undefined) await all;
    else await Promise.race([all, new Promise((r) => setTimeout(r, maxMs).unref())]);
  }
}
