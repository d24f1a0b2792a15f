// JSON-RPC 2.0 as MCP uses it: the messages, what the gateway notes about each message of a request body (read by
// classify.ts) and the errors it answers with.
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

/**
 * What a client message is: a request (a method and an id: an answer is expected), a notification (a method, no id
 * member) or a response (a client's result or error reply to a server request, such as sampling or elicitation).
 */
export type MessageKind = 'request' | 'notification' | 'response';

/** Why the gateway refuses a message before any policy looks at it (classify.ts). */
export interface Invalid {
  code: number;
  message: string;
  /** The `deny` event's `details.reason`. */
  reason: 'invalid_request' | 'invalid_params' | 'repeated_id';
}

/** One message of a client POST, with what the gateway needs to know about it. */
export interface RequestInfo {
  msg: JsonRpcMessage;
  /** Undefined when the message is none of the three: then `invalid` says why. */
  kind?: MessageKind;
  /** Set when the message is refused whatever the credential may do (an unknown shape, bad params, a repeated id). */
  invalid?: Invalid;
  /** Present for requests (a response is expected); absent for notifications and client replies. */
  id?: JsonRpcId;
  method?: string;
  /** tools/call (request or notification): the tool name. */
  tool?: string;
  /** resources/read, subscribe, unsubscribe: the resource URI. */
  uri?: string;
}

/** Gateway JSON-RPC error codes (docs/gateway.md). -32000..-32099 is the implementation-defined server range. */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  invalidParams: -32602,
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
  /** Tool pinning (hide, block): the tool's definition is not the approved one. */
  toolWithheld: -32006,
  /** Tool pinning (block): the proxy is blocked until its owner approves the changed tool definitions. */
  toolPinningBlocked: -32007,
} as const;

export const RpcMsg = {
  parseError: 'Parse error',
  invalidRequest: 'Invalid Request',
  unknownShape: 'Invalid Request: not a JSON-RPC 2.0 request, notification or response',
  badId: 'Invalid Request: id must be a string or a finite number',
  /** Answers are matched to requests by id: two requests (or two replies) with one id in a batch are ambiguous. */
  repeatedId: 'Invalid Request: another message of this batch has the same id',
  invalidParams: (method: string, member: string) => `Invalid params: ${method} needs params.${member} as a string`,
  responseTooLarge: 'Response too large',
  upstreamBroken: McpMsg.broken,
  gatewayStopping: GATEWAY_STOPPING_MESSAGE,
} as const;

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isId(v: unknown): v is JsonRpcId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

export function rpcError(id: JsonRpcId | null | undefined, code: number, message: string): JsonRpcMessage {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message } };
}

export function rpcResult(id: JsonRpcId | null | undefined, result: unknown): JsonRpcMessage {
  return { jsonrpc: '2.0', id: id ?? null, result };
}
