// JSON-RPC 2.0 as MCP uses it: what the gateway reads from a request body and the errors it answers with.
import { GATEWAY_STOPPING_MESSAGE } from '../upstream/pool.ts';
import { McpMsg } from './messages.ts';
export type JsonRpcId = string | number;

export interface JsonRpcMessage {
  jsonrpc?: string;
  id?: JsonRpcId | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** One message of a client POST, with what the gateway needs to know about it. */
export interface RequestInfo {
  msg: JsonRpcMessage;
  /** Present for requests (a response is expected); absent for notifications and client replies. */
  id?: JsonRpcId;
  method?: string;
  /** tools/call: the tool name. */
  tool?: string;
  /** resources/read, subscribe, unsubscribe: the resource URI. */
  uri?: string;
}

/** Gateway JSON-RPC error codes (docs/gateway.md). -32000..-32099 is the implementation-defined server range. */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  /** Response over the owner's MCP response-body cap. */
  responseTooLarge: -32000,
  /** The credential may not use this tool or resource. */
  notPermitted: -32001,
  /** A lambda rule failed; the request failed closed. */
  lambdaFailed: -32002,
  /** A rule refused the request (e.g. a lambda exit inside an SSE stream). */
  blockedByRule: -32003,
  /** Part of a batch another message of which was refused. */
  batchRejected: -32004,
  /** The upstream's stream ended before the answer to this request (broken off, or the gateway is stopping). */
  noAnswer: -32005,
} as const;

export const RpcMsg = {
  responseTooLarge: 'Response too large',
  upstreamBroken: McpMsg.broken,
  gatewayStopping: GATEWAY_STOPPING_MESSAGE,
} as const;

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isId(v: unknown): v is JsonRpcId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/** Reads the messages of a POST body; undefined when it is not a JSON-RPC message or a non-empty array of them. */
export function parseMessages(body: unknown): { batch: boolean; items: RequestInfo[] } | undefined {
  const batch = Array.isArray(body);
  const list = batch ? body : [body];
  if (!list.length) return undefined;
  const items: RequestInfo[] = [];
  for (const m of list) {
    if (!isRecord(m)) return undefined;
    const method = typeof m.method === 'string' ? m.method : undefined;
    const info: RequestInfo = { msg: m as JsonRpcMessage, method };
    if (method && isId(m.id)) info.id = m.id;
    const params = isRecord(m.params) ? m.params : undefined;
    if (method === 'tools/call' && typeof params?.name === 'string') info.tool = params.name;
    if ((method === 'resources/read' || method === 'resources/subscribe' || method === 'resources/unsubscribe') && typeof params?.uri === 'string') info.uri = params.uri;
    items.push(info);
  }
  return { batch, items };
}

export function rpcError(id: JsonRpcId | null | undefined, code: number, message: string): JsonRpcMessage {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message } };
}

export function rpcResult(id: JsonRpcId | null | undefined, result: unknown): JsonRpcMessage {
  return { jsonrpc: '2.0', id: id ?? null, result };
}
