// lambda: runs the rule's Lua (gateway/lua/engine.ts, compiled once per config version) in the access phase (before
// forwarding; svc.response.exit answers the client at once) or, on MCP, in the response phase (per JSON-RPC response
// message; svc.response.set_body replaces the message, svc.response.exit answers instead). A lambda that fails to
// compile, raises an error or exceeds its budget emits `lambda_error` and the request fails closed: a JSON-RPC error
// where the protocol has one (MCP), else HTTP 500 `{ error }`. Every call of one request draws on the request's shared
// lambda budget too (gateway/lua/budget.ts), so many lambdas, or a response lambda run per message of a large batch,
// cannot add up past it; running out fails the same way.
import type { IncomingHttpHeaders } from 'node:http';
import { compileLambda, RequestBudget, type CompiledLambda, type LambdaInput, type LambdaLogLevel } from '../../lua/engine.ts';
import type { BuildContext, RuleEntry } from '../../pipeline/build.ts';
import { emitFor } from '../../pipeline/run.ts';
import { toolScope } from '../../pipeline/scope.ts';
import type { Exchange, Verdict } from '../../pipeline/types.ts';
import { isRecord, RpcCode, type JsonRpcMessage } from '../../mcp/jsonrpc.ts';
import { inScope, type McpRuleHandler, type MessageContext, type MessageOutcome } from '../../mcp/rule-hooks.ts';
import type { LambdaRule } from '@tollgate/contract';
import { CREDENTIAL_HEADERS } from '../../upstream/headers.ts';

export const lambdaFailedMessage = (name: string) => `Request blocked: lambda rule "${name}" failed`;


/** Inbound headers a lambda may read: everything but credentials. */
function visibleHeaders(h: IncomingHttpHeaders): Record<string, string | string[] | undefined> {
  const out: Record<string, string | string[] | undefined> = {};
  for (const [k, v] of Object.entries(h)) if (!CREDENTIAL_HEADERS.has(k)) out[k] = v;
  return out;
}

function baseInput(x: Exchange, rule: LambdaRule, tool: string | undefined, method: string | undefined): Omit<LambdaInput, 'phase'> {
  return {
    context: {
      tool_name: tool, method, proxy_id: x.proxy.id, credential_id: x.identity?.credentialId,
      client_ip: x.clientIp, model: x.facts.model,
    },
    request: { headers: visibleHeaders(x.req.headers), body: x.facts.body ?? '' },
    log: (level: LambdaLogLevel, message: string) => {
      const fields = { proxy: x.proxy.id, lambda: rule.name, lambdaMessage: message };
      if (level === 'err') x.s.log.error('lambda log', fields);
      else if (level === 'warn') x.s.log.warn('lambda log', fields);
      else x.s.log.info('lambda log', fields);
    },
  };
}

type Runner = { ok: true; lambda: CompiledLambda } | { ok: false; error: string };

/** The budget this request's lambdas share, made on its first lambda call. */
function requestBudget(x: Exchange): RequestBudget {
  return (x.lambdaBudget ??= new RequestBudget());
}

/**
 * A response-phase failure is the request's outcome (`lambda_error`) unless the outcome was already recorded (a
 * stream's `allow`, or an earlier failed message of the same answer): then it is a `stream_error` detail.
 */
function failed(x: Exchange, rule: LambdaRule, error: string, tool?: string): void {
  if (x.outcomeRecorded) {
    emitFor(x, { type: 'stream_error', ruleName: rule.name, tool, details: { reason: 'lambda_failed', phase: 'response', error } });
    return;
  }
  x.outcomeRecorded = true;
  emitFor(x, { type: 'lambda_error', ruleName: rule.name, tool, details: { phase: 'response', error } });
}

function access(x: Exchange, rule: LambdaRule, runner: Runner): Verdict {
  // lambda_error is this request's outcome event (chart bucket: error), emitted by the caller from the verdict.
  const deny = (error: string): Verdict => ({
    kind: 'deny', status: 500, message: lambdaFailedMessage(rule.name), rpcCode: RpcCode.lambdaFailed,
    event: { type: 'lambda_error', ruleName: rule.name, details: { phase: 'access', error } },
  });
  if (!runner.ok) return deny(`compile: ${runner.error}`);
  const o = runner.lambda.run({ phase: 'access', ...baseInput(x, rule, x.facts.tools[0], x.facts.method) }, requestBudget(x));
  if (o.kind === 'continue') return { kind: 'continue' };
  if (o.kind === 'error') return deny(o.message);
  return {
    kind: 'respond', status: o.status, body: o.body, headers: o.headers,
    event: { type: o.status >= 400 ? 'deny' : 'allow', ruleName: rule.name, details: { reason: 'lambda_exit', status: o.status } },
  };
}

/** c.method is set: only answers to a request reach a response lambda (buildLambda). */
function response(c: MessageContext, rule: LambdaRule, runner: Runner, msg: JsonRpcMessage): MessageOutcome {
  const { x, tool } = c;
  const fail = (error: string): MessageOutcome => {
    failed(x, rule, error, tool);
    return { kind: 'fail', code: RpcCode.lambdaFailed, message: lambdaFailedMessage(rule.name) };
  };
  if (!runner.ok) return fail(`compile: ${runner.error}`);
  const input: LambdaInput = { phase: 'response', ...baseInput(x, rule, tool, c.method!), response: { status: 200, body: JSON.stringify(msg) } };
  const o = runner.lambda.run(input, requestBudget(x));
  if (o.kind === 'error') return fail(o.message);
  if (o.kind === 'exit') return { kind: 'exit', status: o.status, body: o.body, headers: o.headers };
  if (o.responseBody === undefined) return { kind: 'keep' };
  let next: unknown;
  try {
    next = JSON.parse(o.responseBody);
  } catch {
    return fail('svc.response.set_body: the new body is not JSON (a JSON-RPC message is expected)');
  }
  if (!isRecord(next)) return fail('svc.response.set_body: the new body must be a JSON-RPC message object');
  // The message still answers the same request, whatever the lambda wrote.
  return { kind: 'replace', msg: { ...(next as JsonRpcMessage), jsonrpc: '2.0', id: msg.id } };
}

/** Builds lambda handlers: access-phase ones for every data plane, response-phase ones used by MCP. */
export function buildLambda(entries: RuleEntry<LambdaRule>[], _ctx?: BuildContext): McpRuleHandler[] {
  return entries.map(({ rule, index }) => {
    const runner: Runner = compileLambda(rule.lua_code, rule.name);
    const base = { ruleType: 'lambda', index, ruleName: rule.name, scope: toolScope(rule.tools) };
    if (rule.phase === 'access') return { ...base, access: (x: Exchange) => access(x, rule, runner) };
    const h: McpRuleHandler = {
      ...base,
      onMessage(c, msg) {
        if (c.method === undefined || !inScope(h, c)) return { kind: 'keep' };
        return response(c, rule, runner, msg);
      },
    };
    return h;
  });
}
