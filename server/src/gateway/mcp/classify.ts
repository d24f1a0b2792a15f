// Reads a client POST body into classified messages. Every message is a request, a notification or a client's
// reply to a server request, or it is marked invalid and refused with the rest of its POST (message-policy.ts):
// nothing the gateway could not classify reaches the upstream, because the policy can only check what it
// understood. What the upstream receives is these parsed messages re-serialised (the handler), never the client's
// bytes, so a key written twice in one object (JSON.parse keeps the last, another parser may keep the first)
// reaches the upstream once, with the value the policy checked. docs/gateway.md, "MCP transport", lists the rules.
import { isId, isRecord, RpcCode, RpcMsg, type Invalid, type JsonRpcMessage, type RequestInfo } from './jsonrpc.ts';
import { idKey } from './shape.ts';

/** Methods whose target is a resource URI the key's tags must allow. */
const RESOURCE_METHODS: ReadonlySet<string> = new Set(['resources/read', 'resources/subscribe', 'resources/unsubscribe']);

const has = (m: Record<string, unknown>, k: string) => Object.hasOwn(m, k);
const invalid = (message: string): Invalid => ({ code: RpcCode.invalidRequest, message, reason: 'invalid_request' });

/**
 * Reads the messages of a POST body: undefined when the body is not an object or a non-empty array of objects.
 * Unclassifiable messages are kept, marked `invalid`, so the answer can name each.
 */
export function parseMessages(body: unknown): { batch: boolean; items: RequestInfo[] } | undefined {
  const batch = Array.isArray(body);
  const list: unknown[] = batch ? body : [body];
  if (!list.length || !list.every(isRecord)) return undefined;
  const items = list.map((m) => classify(m as Record<string, unknown>));
  if (batch) refuseRepeatedIds(items);
  return { batch, items };
}

/** One message: its kind and what the policy reads from it, or why it is invalid. */
export function classify(m: Record<string, unknown>): RequestInfo {
  // Typed as a message for the code after this one; only the fields checked below are relied on.
  const info: RequestInfo = { msg: m as JsonRpcMessage };
  if (typeof m.method === 'string') info.method = m.method;
  if (m.jsonrpc !== '2.0') return { ...info, invalid: invalid(RpcMsg.unknownShape) };
  if (has(m, 'method')) return classifyCall(m, info);
  return classifyReply(m, info);
}

/** A request or a notification: a string method, params an object if present, an id member only for a request. */
function classifyCall(m: Record<string, unknown>, info: RequestInfo): RequestInfo {
  const method = info.method;
  if (method === undefined || has(m, 'result') || has(m, 'error') || (has(m, 'params') && !isRecord(m.params))) {
    return { ...info, invalid: invalid(RpcMsg.unknownShape) };
  }
  // An id member that is null, a boolean, an object or an array names no request: a notification has no id member.
  if (has(m, 'id') && !isId(m.id)) return { ...info, invalid: invalid(RpcMsg.badId) };
  if (has(m, 'id')) info.id = m.id as RequestInfo['id'];
  info.kind = has(m, 'id') ? 'request' : 'notification';
  const params = m.params as Record<string, unknown> | undefined;
  if (method === 'tools/call') return target(info, params, 'name', 'tool');
  if (RESOURCE_METHODS.has(method)) return target(info, params, 'uri', 'uri');
  return info;
}

/** The tool or resource a call names: a string, or the call is refused (-32602) before the permission check. */
function target(info: RequestInfo, params: Record<string, unknown> | undefined, member: 'name' | 'uri', field: 'tool' | 'uri'): RequestInfo {
  const v = params?.[member];
  if (typeof v !== 'string') return { ...info, invalid: { code: RpcCode.invalidParams, message: RpcMsg.invalidParams(info.method!, member), reason: 'invalid_params' } };
  info[field] = v;
  return info;
}

/** A client's reply to a server request: a string or number id and exactly one of result and error. */
function classifyReply(m: Record<string, unknown>, info: RequestInfo): RequestInfo {
  if (!isId(m.id)) return { ...info, invalid: invalid(has(m, 'id') ? RpcMsg.badId : RpcMsg.unknownShape) };
  if (has(m, 'result') === has(m, 'error')) return { ...info, invalid: invalid(RpcMsg.unknownShape) };
  if (has(m, 'error') && !isErrorObject(m.error)) return { ...info, invalid: invalid(RpcMsg.unknownShape) };
  info.kind = 'response';
  return info;
}

function isErrorObject(e: unknown): boolean {
  return isRecord(e) && Number.isInteger(e.code) && typeof e.message === 'string';
}

/**
 * Two requests of one batch with the same id cannot both be answered: the answers are matched to requests by id
 * (the tools/list filter among them), so a `ping` sharing the id of a `tools/list` would make the list pass as the
 * ping's answer. Two replies with one id answer one server request twice. Each such message is refused; a request
 * and a reply may share an id (the client's and the server's ids are separate).
 */
export function refuseRepeatedIds(items: RequestInfo[]): void {
  const seen = new Map<string, number>();
  const keyOf = (i: RequestInfo) => (i.kind === 'request' ? `q:${idKey(i.id)}` : i.kind === 'response' ? `r:${idKey(i.msg.id)}` : undefined);
  for (const i of items) {
    const k = keyOf(i);
    if (k !== undefined) seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  for (const i of items) {
    const k = keyOf(i);
    if (k !== undefined && seen.get(k)! > 1) i.invalid = { code: RpcCode.invalidRequest, message: RpcMsg.repeatedId, reason: 'repeated_id' };
  }
}
