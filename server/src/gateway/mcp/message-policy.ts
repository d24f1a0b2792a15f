// The gateway's decision on each message of a POST, once the pipeline has let the request through: forward it,
// answer it itself (synthetic tools and resources), or refuse it. Requests and notifications are checked alike: a
// tools/call sent without an id still runs the tool upstream, so it needs the same permission. One refused message
// refuses its whole POST, and nothing of it goes upstream (docs/gateway.md, "Inbound authentication").
import type { ServerResponse } from 'node:http';
import { emitFor } from '../pipeline/run.ts';
import type { Exchange } from '../pipeline/types.ts';
import { sendJson } from '../upstream/reply.ts';
import { RpcCode, rpcError, rpcResult, type JsonRpcMessage, type RequestInfo } from './jsonrpc.ts';
import { McpMsg } from './messages.ts';
import type { McpPermissions } from './permissions.ts';
import type { McpRuntime } from './runtime.ts';
import { callResult, readResult } from './synthetic.ts';
import { PinMsg } from './pinning/policy.ts';

export interface Refused {
  item: RequestInfo;
  code: number;
  message: string;
  reason: string;
}

export interface MessagePlan {
  /** The messages to send upstream, as parsed (the handler re-serialises them). */
  forwarded: RequestInfo[];
  /** The gateway's own answers to requests (a notification to a synthetic tool or resource needs none). */
  local: JsonRpcMessage[];
  refused: Refused[];
}

type Decision =
  | { kind: 'forward' }
  | { kind: 'local'; answer: JsonRpcMessage | undefined }
  | { kind: 'refuse'; code: number; message: string; reason: string };

const FORWARD: Decision = { kind: 'forward' };

export function planMessages(rt: McpRuntime, perms: McpPermissions, items: readonly RequestInfo[]): MessagePlan {
  const plan: MessagePlan = { forwarded: [], local: [], refused: [] };
  for (const item of items) {
    const d = decide(rt, perms, item);
    if (d.kind === 'forward') plan.forwarded.push(item);
    else if (d.kind === 'refuse') plan.refused.push({ item, code: d.code, message: d.message, reason: d.reason });
    else if (d.answer) plan.local.push(d.answer);
  }
  return plan;
}

function decide(rt: McpRuntime, perms: McpPermissions, item: RequestInfo): Decision {
  if (item.invalid) return { kind: 'refuse', ...item.invalid };
  if (item.tool !== undefined) return decideCall(rt, perms, item, item.tool);
  if (item.uri !== undefined) {
    const syn = rt.synthetic.byUri.get(item.uri);
    if (!perms.resource(syn?.id)) return { kind: 'refuse', code: RpcCode.notPermitted, message: McpMsg.resourceNotPermitted(item.uri), reason: 'resource_not_permitted' };
    if (!syn) return FORWARD;
    if (item.id === undefined) return { kind: 'local', answer: undefined };
    return { kind: 'local', answer: rpcResult(item.id, item.method === 'resources/read' ? readResult(syn) : {}) };
  }
  return FORWARD;
}

/** A tools/call: the credential's permission, then synthetic tools (the gateway's own), then tool pinning. */
function decideCall(rt: McpRuntime, perms: McpPermissions, item: RequestInfo, tool: string): Decision {
  if (!perms.tool(tool)) return { kind: 'refuse', code: RpcCode.notPermitted, message: McpMsg.toolNotPermitted(tool), reason: 'tool_not_permitted' };
  const syn = rt.synthetic.tools.get(tool);
  if (syn) return { kind: 'local', answer: item.id === undefined ? undefined : rpcResult(item.id, callResult(syn)) };
  const withheld = rt.pinning?.withheld(tool);
  if (withheld) return { kind: 'refuse', code: RpcCode.toolWithheld, message: PinMsg.withheld(tool, withheld), reason: withheld === 'added' ? 'tool_not_approved' : 'tool_changed' };
  return FORWARD;
}

/**
 * Answers a POST with refused messages. Each refused message gets its error, with its id when it is a request (a
 * notification, a reply or an unreadable message has no id of the client's to answer); every other request gets
 * -32004. Status: 400 when a message is malformed (the body is not acceptable JSON-RPC), else 200 when the POST
 * carries a request (its answer is the JSON-RPC error), else, notifications and replies alone expecting no answer,
 * 403 for a permission refusal and 400 for bad params (Streamable HTTP: refused input without requests gets an
 * HTTP error status, with a JSON-RPC error without id as its body).
 */
export function refuseMessages(x: Exchange, res: ServerResponse, { batch, items }: { batch: boolean; items: readonly RequestInfo[] }, refused: readonly Refused[]): void {
  const byItem = new Map(refused.map((r) => [r.item, r]));
  const errs: JsonRpcMessage[] = [];
  for (const i of items) {
    const r = byItem.get(i);
    if (r) errs.push(rpcError(i.id, r.code, r.message));
    else if (i.id !== undefined) errs.push(rpcError(i.id, RpcCode.batchRejected, McpMsg.batchRejected));
  }
  recordRefusals(x, refused);
  sendJson(res, refusalStatus(items, refused), batch ? errs : errs[0]);
}

function refusalStatus(items: readonly RequestInfo[], refused: readonly Refused[]): number {
  if (refused.some((r) => r.code === RpcCode.invalidRequest)) return 400;
  if (items.some((i) => i.id !== undefined)) return 200;
  return refused.some((r) => r.code === RpcCode.invalidParams) ? 400 : 403;
}

/** Refusals of one tool or resource: each gets its own `deny` event. */
const PER_TARGET: ReadonlySet<number> = new Set([RpcCode.notPermitted, RpcCode.toolWithheld]);

/** One `deny` per permission or pinning refusal (with its tool or resource), one for all the malformed messages. */
function recordRefusals(x: Exchange, refused: readonly Refused[]): void {
  const malformed = refused.filter((r) => !PER_TARGET.has(r.code));
  for (const r of refused) {
    if (!PER_TARGET.has(r.code)) continue;
    emitFor(x, { type: 'deny', tool: r.item.tool, details: { reason: r.reason, method: r.item.method, uri: r.item.uri || undefined } });
  }
  if (malformed.length) emitFor(x, { type: 'deny', details: { reason: malformed[0]!.reason, method: x.facts.method, messages: malformed.length } });
}
