// What happens to each JSON-RPC message coming back from the upstream: the gateway's own changes by request method
// (permission filtering of tools/list and resources/list, synthetic tools and resources merged in, capabilities
// announced), then the rules' message hooks in array order, then the static_cache store. Used for JSON bodies
// (per element) and SSE streams (per event) alike.
import { storeCached } from '../rules/static_cache/handler.ts';
import type { Exchange } from '../pipeline/types.ts';
import { isRecord, rpcError, type JsonRpcId, type JsonRpcMessage, type RequestInfo } from './jsonrpc.ts';
import type { McpPermissions } from './permissions.ts';
import type { MessageContext } from './rule-hooks.ts';
import type { McpRuntime } from './runtime.ts';
import { listEntry, toolEntry, type SyntheticCatalog } from './synthetic.ts';

export type Shaped =
  | { kind: 'keep' }
  | { kind: 'replace'; msg: JsonRpcMessage }
  | { kind: 'exit'; status: number; body: string; headers: Record<string, string> };

export const idKey = (id: JsonRpcId | null | undefined) => `${typeof id}:${String(id)}`;

export class Shaper {
  private readonly requests = new Map<string, RequestInfo>();
  /** Tool of notifications streamed during the POST: its only tools/call, if it has exactly one. */
  private readonly streamTool: string | undefined;
  readonly active: boolean;

  constructor(private readonly rt: McpRuntime, private readonly x: Exchange, private readonly perms: McpPermissions, forwarded: readonly RequestInfo[]) {
    for (const r of forwarded) if (r.id !== undefined) this.requests.set(idKey(r.id), r);
    const calls = forwarded.filter((r) => r.tool !== undefined);
    this.streamTool = calls.length === 1 ? calls[0]!.tool : undefined;
    this.active = this.computeActive(forwarded);
  }

  /** Whether any message of this exchange may change; when not, bodies and events pass through unparsed. */
  private computeActive(forwarded: readonly RequestInfo[]): boolean {
    const { rt } = this;
    // Tool pinning reads every message: a notifications/tools/list_changed starts the gateway's own check.
    if (this.x.cacheSlot || rt.pinning) return true;
    for (const r of forwarded) if (this.builtinMayChange(r.method)) return true;
    return rt.messageRules.some((h) => h.scope.all || forwarded.some((r) => h.scope.has(r.tool)));
  }

  /** Whether builtin() may change the answer to a request of this method. */
  private builtinMayChange(method: string | undefined): boolean {
    const { rt, perms } = this;
    switch (method) {
      case 'initialize': return !!(rt.synthetic.resources.length || rt.synthetic.tools.size);
      case 'tools/list': return !!(!perms.allTools || rt.synthetic.tools.size || rt.toolsListRules.length || rt.synthetic.pointers.size || rt.pinning);
      case 'resources/list': return !!(!perms.allResources || rt.synthetic.resources.length);
      case 'resources/templates/list': return !perms.allResources;
      default: return false;
    }
  }

  /** The request a response message answers, if it is one. */
  requestFor(msg: JsonRpcMessage): RequestInfo | undefined {
    if (msg.method !== undefined || msg.id === undefined || msg.id === null) return undefined;
    return this.requests.get(idKey(msg.id));
  }

  async shape(msg: JsonRpcMessage): Promise<Shaped> {
    this.watchListChanged(msg);
    const req = this.requestFor(msg);
    let cur = msg;
    let changed = false;
    if (req) {
      const b = this.builtin(req, cur);
      if (b) { cur = b; changed = true; }
    }
    const c: MessageContext = { x: this.x, tool: req ? req.tool : this.streamTool, method: req?.method };
    for (const h of this.rt.messageRules) {
      const o = await h.onMessage!(c, cur);
      if (o.kind === 'keep') continue;
      if (o.kind === 'exit') return o;
      if (o.kind === 'fail') return failed(cur, o);
      cur = o.msg;
      changed = true;
    }
    if (req?.method === 'tools/call') this.cacheResult(cur);
    return changed ? { kind: 'replace', msg: cur } : { kind: 'keep' };
  }

  /** Tool pinning: the upstream says its tool list changed, so the gateway looks for itself. */
  private watchListChanged(msg: JsonRpcMessage): void {
    if (msg.method === 'notifications/tools/list_changed') this.rt.pinning?.listChanged();
  }

  /** A successful tools/call result is stored when static_cache missed on it. */
  private cacheResult(msg: JsonRpcMessage): void {
    if (this.x.cacheSlot && isRecord(msg.result) && msg.result.isError !== true) {
      void storeCached(this.x, JSON.stringify(msg.result));
    }
  }

  /** The gateway's own changes to responses, by the method of the request answered. Undefined: unchanged. */
  private builtin(req: RequestInfo, msg: JsonRpcMessage): JsonRpcMessage | undefined {
    const { rt, perms } = this;
    const syn = rt.synthetic;
    const firstPage = !(isRecord(req.msg.params) && req.msg.params.cursor !== undefined);
    switch (req.method) {
      case 'initialize': return initializeResult(msg, syn);
      case 'tools/list': return this.toolsList(msg, firstPage);
      case 'resources/list': return this.resourcesList(msg, perms, firstPage);
      case 'resources/templates/list': {
        if (perms.allResources || !isRecord(msg.result)) return undefined;
        return { ...msg, result: { ...msg.result, resourceTemplates: [] } };
      }
      default: return undefined;
    }
  }

  /** tools/list: only the tools the credential may use, the synthetic ones, resource pointers and rule edits. */
  private toolsList(msg: JsonRpcMessage, firstPage: boolean): JsonRpcMessage | undefined {
    const { rt, perms } = this;
    const syn = rt.synthetic;
    if (!isRecord(msg.result) || !Array.isArray(msg.result.tools)) return undefined;
    const pinned = pinTools(rt, msg, msg.result.tools as unknown[]);
    if (pinned.blocked) return pinned.blocked;
    let tools = (msg.result.tools as unknown[]).filter(isRecord)
      .filter((t) => typeof t.name === 'string' && perms.tool(t.name) && !syn.tools.has(t.name) && !pinned.withheld(t.name));
    if (firstPage) for (const t of syn.tools.values()) if (perms.tool(t.name)) tools.push(toolEntry(t));
    if (syn.pointers.size || rt.toolsListRules.length) {
      tools = tools.map((t) => ({ ...t }));
      for (const t of tools) addPointers(t, syn.pointers.get(t.name as string));
      for (const h of rt.toolsListRules) h.onToolsList!(tools);
    }
    return { ...msg, result: { ...msg.result, tools } };
  }

  private resourcesList(msg: JsonRpcMessage, perms: McpPermissions, firstPage: boolean): JsonRpcMessage | undefined {
    const syn = this.rt.synthetic;
    const own = firstPage ? syn.resources.filter((r) => perms.resource(r.id)).map(listEntry) : [];
    if (msg.error) {
      // An upstream without resources answers "method not found"; the synthetic ones are still served.
      if (!syn.resources.length) return undefined;
      return { jsonrpc: '2.0', id: msg.id, result: { resources: own } };
    }
    if (!isRecord(msg.result)) return undefined;
    const upstream = perms.allResources && Array.isArray(msg.result.resources) ? msg.result.resources as unknown[] : [];
    const ownUris = new Set(own.map((e) => e.uri));
    const merged = [...own, ...upstream.filter((e) => !(isRecord(e) && ownUris.has(e.uri as string)))];
    return { ...msg, result: { ...msg.result, resources: merged } };
  }
}

const NOTHING_WITHHELD = { withheld: () => false } as const;

/**
 * Tool pinning on an upstream tools/list answer, before anything else edits it: the differences are seen (and
 * recorded when new); block mode with differences answers with its error instead, hide mode withholds the tools whose
 * definition is not the approved one. Synthetic tools are the gateway's own and never compared.
 */
function pinTools(rt: McpRuntime, msg: JsonRpcMessage, upstream: unknown[]): { blocked?: JsonRpcMessage; withheld(name: string): boolean } {
  const p = rt.pinning;
  if (!p) return NOTHING_WITHHELD;
  p.observe(upstream, new Set(rt.synthetic.tools.keys()));
  const blocked = p.blocked();
  if (blocked) return { blocked: rpcError(msg.id, blocked.rpcCode!, blocked.message), withheld: () => true };
  if (p.view.mode === 'warn') return NOTHING_WITHHELD;
  return { withheld: (name) => p.withheld(name) !== undefined };
}

/** initialize: the capabilities the synthetic resources and tools need, added to the upstream's. */
function initializeResult(msg: JsonRpcMessage, syn: SyntheticCatalog): JsonRpcMessage | undefined {
  if (!isRecord(msg.result) || (!syn.resources.length && !syn.tools.size)) return undefined;
  const caps = isRecord(msg.result.capabilities) ? { ...msg.result.capabilities } : {};
  if (syn.resources.length && !caps.resources) caps.resources = {};
  if (syn.tools.size && !caps.tools) caps.tools = {};
  return { ...msg, result: { ...msg.result, capabilities: caps } };
}

/** inject_into_tools: the resource pointers appended to a tool's description. */
function addPointers(tool: Record<string, unknown>, ptr: string[] | undefined): void {
  if (ptr) tool.description = [typeof tool.description === 'string' ? tool.description : '', ...ptr].filter(Boolean).join('\n\n');
}

/** A message rule failed closed: a request's answer becomes a JSON-RPC error, anything else an error notification. */
function failed(cur: JsonRpcMessage, o: { code: number; message: string }): Shaped {
  if (cur.id === undefined || cur.id === null || cur.method !== undefined) return { kind: 'replace', msg: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: o.message } } };
  return { kind: 'replace', msg: rpcError(cur.id, o.code, o.message) };
}
