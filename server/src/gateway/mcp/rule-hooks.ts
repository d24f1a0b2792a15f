// The response-side hooks MCP rules add to the generic RuleHandler. The MCP handler calls them per JSON-RPC message
// coming back from the upstream (each element of a JSON body, each SSE event), in rule-array order.
import type { Exchange, MaybePromise, RuleHandler } from '../pipeline/types.ts';
import type { JsonRpcMessage } from './jsonrpc.ts';

export interface MessageContext {
  x: Exchange;
  /** The tool this message belongs to: the tools/call it answers, or the single tools/call of the POST whose stream carries it. */
  tool?: string;
  /** For responses: the method of the request answered. Undefined for notifications and server-to-client requests. */
  method?: string;
}

export type MessageOutcome =
  | { kind: 'keep' }
  | { kind: 'replace'; msg: JsonRpcMessage }
  /** Fail closed: the message becomes a JSON-RPC error (its event was already emitted by the rule). */
  | { kind: 'fail'; code: number; message: string }
  /** A lambda's svc.response.exit in the response phase. */
  | { kind: 'exit'; status: number; body: string; headers: Record<string, string> };

export interface McpRuleHandler extends RuleHandler {
  onMessage?(c: MessageContext, msg: JsonRpcMessage): MaybePromise<MessageOutcome>;
  /** Changes the tool entries of a tools/list result in place (tool_description_inject). */
  onToolsList?(tools: Array<Record<string, unknown>>): void;
}

/** Methods whose results carry upstream content (what redaction applies to, besides notifications). */
export const CONTENT_METHODS: ReadonlySet<string> = new Set(['tools/call', 'resources/read', 'prompts/get']);

/** True when the rule's `tools` scope covers the message. */
export function inScope(h: RuleHandler, c: MessageContext): boolean {
  return h.scope.all || h.scope.has(c.tool);
}
