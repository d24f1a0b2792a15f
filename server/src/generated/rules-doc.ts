// Writes docs/rules.md, the firewall rule reference, from the zod schemas in server/src/gateway/rules/*/schema.ts
// (one schema, many surfaces). The examples and the error messages in the document are produced by running the
// real validator, so they cannot drift from the code.
//
//   written by `npm run gen` (server/src/generated/files.ts); generated.test.ts fails when docs/rules.md is stale
import { z } from 'zod';
import { HttpError } from '../http/errors.ts';
import { commonFields } from '@tollgate/contract';
import { MAX_LAMBDAS_PER_PROXY, MAX_RULES_PER_PROXY, RULE_EXAMPLES, RULE_SCHEMAS, RULE_TYPES_BY_KIND, type ProxyKind, type RuleType } from '@tollgate/contract';
import { validateRules } from '../gateway/rules/validate.ts';

export const RULES_DOC_PATH = 'docs/rules.md';

interface JsonSchema {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  pattern?: string;
}

/** Checks the validator makes that a JSON Schema cannot show (refinements and per-kind checks in registry.ts). */
const EXTRA_CHECKS: Partial<Record<RuleType, string[]>> = {
  rate_limit: [
    '`name` must be unique among the proxy\'s `rate_limit` rules.',
    '`match_key: tokens_per_minute` is accepted only on LLM proxies; `threshold` is then a token count.',
    '`ban_after_n_exceeded` and `ban_timespan` are set together or not at all.',
  ],
  response_replace: ['`pattern` must compile in RE2 (linear time): backreferences, lookaround and possessive quantifiers are rejected.'],
  prompt_replace: ['`pattern` must compile in RE2 (linear time): backreferences, lookaround and possessive quantifiers are rejected.'],
  model_route: ['`pattern` must compile in RE2. The first matching `model_route` rule wins.'],
  lambda: ['`phase: response` is accepted only on MCP proxies. The `svc` namespace a lambda sees is described in docs/lambda.md.'],
  mcp_resource: ['`tool_name` is required when `expose_as_tool` is true.'],
};

/** The contract's example of each rule type (also the fuzzer's and the soak's); each is run through validateRules here. */
const EXAMPLES = RULE_EXAMPLES;

/** Invalid inputs whose real error messages are shown in the document. */
const ERROR_EXAMPLES: Array<[ProxyKind, unknown[], string]> = [
  ['mcp', [{ rule_type: 'prompt_guard', tools: ['*'], detectors: ['pi_dan'], action: 'block' }], 'a rule type the proxy kind does not accept'],
  ['llm', [EXAMPLES.ip_acl, { ...EXAMPLES.lambda, phase: 'response' }], 'a response-phase lambda on an LLM proxy'],
  ['mcp', [{ ...EXAMPLES.static_cache, cache_ttl: 30 }], 'a value out of range'],
  ['mcp', [EXAMPLES.rate_limit, EXAMPLES.rate_limit], 'two rate limits with one name'],
  ['mcp', [{ ...EXAMPLES.response_replace, pattern: '(a)\\1' }], 'a pattern RE2 cannot run'],
  ['mcp', [{ rule_type: 'waf', tools: ['*'] }], 'an unknown rule type'],
  ['mcp', Array(MAX_RULES_PER_PROXY + 1).fill(EXAMPLES.ip_acl), `more than ${MAX_RULES_PER_PROXY} rules`],
  ['llm', Array(MAX_LAMBDAS_PER_PROXY + 1).fill(EXAMPLES.lambda), `more than ${MAX_LAMBDAS_PER_PROXY} lambda rules`],
];

const COMMON = new Set(Object.keys(commonFields).concat('rule_type'));

function jsonSchema(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

function code(v: unknown): string {
  return '`' + (typeof v === 'string' ? v : JSON.stringify(v)) + '`';
}

function typeOf(j: JsonSchema): string {
  if (j.anyOf) return j.anyOf.map(typeOf).join(' or ');
  if (j.const !== undefined) return code(j.const);
  if (j.enum) return j.enum.length > 6 ? 'string (one of the ids listed below)' : j.enum.map(code).join(', ');
  if (j.type === 'array') return `array of ${j.items ? typeOf(j.items) : 'any'}`;
  return j.type ?? 'any';
}

/** Each JSON Schema keyword that bounds a value, and how to say it. */
const BOUNDS: Array<(j: JsonSchema) => string | undefined> = [
  (j) => (j.exclusiveMinimum === undefined ? undefined : `> ${j.exclusiveMinimum}`),
  (j) => (j.minimum === undefined ? undefined : `≥ ${j.minimum}`),
  (j) => (j.maximum === undefined || j.maximum >= Number.MAX_SAFE_INTEGER ? undefined : `≤ ${j.maximum}`),
  (j) => (!j.minLength ? undefined : j.minLength === 1 ? 'not empty' : `at least ${j.minLength} characters`),
  (j) => (j.maxLength === undefined ? undefined : `at most ${j.maxLength} characters`),
  (j) => (!j.minItems ? undefined : `at least ${j.minItems} item${j.minItems === 1 ? '' : 's'}`),
  (j) => (j.pattern ? `matches ${code(j.pattern)}` : undefined),
];

function limits(j: JsonSchema): string[] {
  if (j.anyOf) return j.anyOf.flatMap(limits);
  const own = BOUNDS.map((b) => b(j)).filter((x): x is string => x !== undefined);
  return j.items ? [...own, ...limits(j.items).map((l) => `each ${l}`)] : own;
}

/** JSON with arrays of plain values kept on one line (shorter examples). */
function pretty(v: unknown): string {
  return JSON.stringify(v, null, 2).replace(/\[\s+([^[\]{}]*?)\s+\]/g, (_, inner: string) => `[${inner.split(/,\s+/).join(', ')}]`);
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function fieldRow(name: string, f: JsonSchema, required: boolean): string {
  const l = limits(f);
  const notes = name === 'rule_type' ? 'The rule type (discriminator): one of the types below.'
    : [f.description ?? '', l.length ? `(${l.join(', ')})` : ''].filter(Boolean).join(' ');
  const def = f.default === undefined ? '' : '`' + JSON.stringify(f.default) + '`';
  const type = name === 'rule_type' ? 'string' : typeOf(f);
  return `| ${code(name)} | ${cell(type)} | ${required ? 'yes' : 'no'} | ${cell(def)} | ${cell(notes)} |`;
}

function fieldTable(j: JsonSchema, only: (name: string) => boolean): string[] {
  const required = new Set(j.required ?? []);
  const fields = Object.entries(j.properties ?? {}).filter(([name]) => only(name));
  const rows = ['| Field | Type | Required | Default | Notes |', '|---|---|---|---|---|'];
  rows.push(...fields.map(([name, f]) => fieldRow(name, f, required.has(name))));
  // Long enumerations (detector ids) are listed below the table instead of inside a cell.
  const enums = fields.flatMap(([name, f]) => {
    const e = f.enum ?? f.items?.enum;
    return e && e.length > 6 ? [`Values of ${code(name)}: ${e.map(code).join(', ')}.`] : [];
  });
  return enums.length ? [...rows, '', ...enums] : rows;
}

function kindsOf(type: RuleType): ProxyKind[] {
  return (['mcp', 'llm'] as const).filter((k) => RULE_TYPES_BY_KIND[k].includes(type));
}

function errorOf(kind: ProxyKind, rules: unknown[]): string {
  try {
    validateRules(kind, rules);
  } catch (err) {
    if (err instanceof HttpError) return err.message;
    throw err;
  }
  throw new Error(`error example for ${kind} unexpectedly validated: ${JSON.stringify(rules)}`);
}

function ruleSection(type: RuleType): string[] {
  const j = jsonSchema(RULE_SCHEMAS[type]);
  const kinds = kindsOf(type);
  const [stored] = validateRules(kinds[0]!, [EXAMPLES[type]]); // throws if the example went stale
  return [
    `## ${type}`,
    '',
    j.description ?? '',
    '',
    `Valid on: ${kinds.map((k) => (k === 'mcp' ? 'MCP proxies' : 'LLM proxies')).join(' and ')}. Fields besides the common ones:`,
    '',
    ...fieldTable(j, (n) => !COMMON.has(n)),
    '',
    ...(EXTRA_CHECKS[type] ?? []).map((c) => `- ${c}`),
    ...(EXTRA_CHECKS[type] ? [''] : []),
    'Example (as sent):',
    '',
    '```json',
    pretty(EXAMPLES[type]),
    '```',
    '',
    'As stored and returned (defaults filled in):',
    '',
    '```json',
    pretty(stored),
    '```',
    '',
  ];
}

export function renderRulesDoc(): string {
  const types = Object.keys(RULE_SCHEMAS) as RuleType[];
  const anyRule = jsonSchema(RULE_SCHEMAS.ip_acl);
  const lines = [
    '# Firewall rules reference',
    '',
    '<!-- Generated by server/src/generated/rules-doc.ts from server/src/gateway/rules/*/schema.ts. Do not edit by hand:',
    '     run `npm run gen`. A test fails when this file is stale. -->',
    '',
    'Every proxy has one ordered array of rules, evaluated in array order on every request. `GET /api/mcp/:id/rules`',
    '(or `/api/llm/:id/rules`) returns `{rules}`; `PUT` with `{rules: [...]}` replaces the whole array atomically and',
    'answers `{rules}` as stored, with defaults filled in. To add one rule: GET, append, PUT. A rejected PUT changes',
    'nothing. Errors are 400 `{error}` whose message starts with `rules[<index>].<field>:`, or with `rules:` for the',
    'caps on the whole array.',
    '',
    `A proxy holds at most ${MAX_RULES_PER_PROXY} rules, of which at most ${MAX_LAMBDAS_PER_PROXY} are \`lambda\` rules (disabled ones count too). The caps are the`,
    'same for every user (no tag raises them); the RuleSets of one proxy (docs/kubernetes.md) count together. All',
    'lambdas of one request also share one time and instruction budget (docs/lambda.md).',
    '',
    '## Which proxies accept which rule types',
    '',
    '| rule_type | MCP proxies | LLM proxies |',
    '|---|---|---|',
    ...types.map((t) => `| ${code(t)} | ${kindsOf(t).includes('mcp') ? 'yes' : 'no'} | ${kindsOf(t).includes('llm') ? 'yes' : 'no'} |`),
    '',
    '## How a rule type is served',
    '',
    'A rule type lives in two folders: `contract/src/rules/<type>/schema.ts` (its fields and the proxy kinds that accept',
    'it) and `server/src/gateway/rules/<type>/` (what the gateway runs). `server/src/gateway/pipeline/rule-servers.ts`',
    'names, for each proxy kind, what serves every rule type that kind accepts; its type is derived from the contract, so',
    'a type made valid on a kind without a server there does not compile. At run time a rule the gateway cannot run (no',
    'server for its type on its proxy\'s kind, or a handler that fails to build) is never skipped: every request in its',
    '`tools` scope gets 500 `{"error": "Gateway rule error"}` and an `error` event. The example of each type below comes',
    'from `contract/src/rules/examples.ts`, which the gateway fuzzer and the soak also run.',
    '',
    '## Fields every rule has',
    '',
    ...fieldTable(anyRule, (n) => COMMON.has(n)),
    '',
    ...types.flatMap(ruleSection),
    '## Error messages (produced by the validator)',
    '',
    '| Input | Proxy | Message |',
    '|---|---|---|',
    ...ERROR_EXAMPLES.map(([kind, rules, what]) => `| ${what} | ${kind === 'mcp' ? 'MCP' : 'LLM'} | ${cell(code(errorOf(kind, rules)))} |`),
    '',
  ];
  return lines.join('\n');
}
