// response_replace: redacts upstream content with a user pattern run on RE2 (linear time, so no pattern can hang the
// gateway). Applied to every string inside the result of tools/call, resources/read and prompts/get responses and
// inside the params of notifications and server requests streamed during the call, so the JSON stays valid and
// structured content keeps its types. Works the same on JSON bodies and on each SSE event. Emits dlp_match with
// the number of matches (never the matched text).
import { Replacer } from '../regex.ts';
import type { RuleEntry } from '../../pipeline/build.ts';
import { emitFor } from '../../pipeline/run.ts';
import { toolScope } from '../../pipeline/scope.ts';
import { CONTENT_METHODS, inScope, type McpRuleHandler, type MessageOutcome } from '../../mcp/rule-hooks.ts';
import type { JsonRpcMessage } from '../../mcp/jsonrpc.ts';
import type { ResponseReplaceRule } from '@tollgate/contract';

/** Applies fn to every string in a JSON value; returns the same object when nothing changed. */
export function mapStrings(v: unknown, fn: (s: string) => string): unknown {
  if (typeof v === 'string') return fn(v);
  if (Array.isArray(v)) return mapArray(v, fn);
  if (v && typeof v === 'object') return mapObject(v as Record<string, unknown>, fn);
  return v;
}

function mapArray(v: unknown[], fn: (s: string) => string): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < v.length; i++) {
    const n = mapStrings(v[i], fn);
    if (n !== v[i]) (out ??= v.slice())[i] = n;
  }
  return out ?? v;
}

function mapObject(o: Record<string, unknown>, fn: (s: string) => string): Record<string, unknown> {
  // for...in, not Object.entries: this walks every object of every response message. Values come from JSON.parse,
  // so every enumerable key is an own one.
  let out: Record<string, unknown> | undefined;
  for (const k in o) {
    const val = o[k];
    const n = mapStrings(val, fn);
    if (n !== val) (out ??= { ...o })[k] = n;
  }
  return out ?? o;
}

/** Redacts a message; returns the new message and the match count. */
export function redactMessage(replacer: Replacer, msg: JsonRpcMessage): { msg: JsonRpcMessage; count: number } {
  const r = new Redaction(replacer);
  const out: JsonRpcMessage = { ...msg };
  if ('result' in msg) out.result = mapStrings(msg.result, r.fn);
  if ('params' in msg) out.params = mapStrings(msg.params, r.fn);
  if (msg.error) out.error = mapStrings(msg.error, r.fn) as JsonRpcMessage['error'];
  return { msg: r.count ? out : msg, count: r.count };
}

/**
 * The string function and match count of one redaction. The function is assigned as a member rather than a named
 * local closure: the tsx loader (esbuild keepNames) wraps every named local function in a defineProperty call, a
 * measurable cost on a path that runs for every response message.
 */
class Redaction {
  count = 0;
  readonly fn: (s: string) => string;

  constructor(replacer: Replacer) {
    this.fn = (s) => {
      const r = replacer.apply(s);
      if (!r.count) return s;
      this.count += r.count;
      return r.text;
    };
  }
}

export function buildResponseReplace(entries: RuleEntry<ResponseReplaceRule>[]): McpRuleHandler[] {
  return entries.map(({ rule, index }) => {
    const { replacer, error } = Replacer.compile(rule.pattern, rule.regex_flags, rule.replacement);
    if (!replacer) throw new Error(`response_replace rule ${index}: ${error}`);
    const ruleName = `response_replace#${index}`;
    const h: McpRuleHandler = {
      ruleType: 'response_replace', index, ruleName, scope: toolScope(rule.tools),
      onMessage(c, msg): MessageOutcome {
        if (!inScope(h, c)) return { kind: 'keep' };
        if (c.method !== undefined && !CONTENT_METHODS.has(c.method)) return { kind: 'keep' };
        const r = redactMessage(replacer, msg);
        if (!r.count) return { kind: 'keep' };
        emitFor(c.x, { type: 'dlp_match', ruleName, tool: c.tool, details: { matches: r.count, rule_index: index, dlp_rule_id: rule.dlp_rule_id || undefined } });
        return { kind: 'replace', msg: r.msg };
      },
    };
    return h;
  });
}
