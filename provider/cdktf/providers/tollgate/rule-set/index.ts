// https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set
// generated from terraform resource schema

import { Construct } from 'constructs';
import * as cdktf from 'cdktf';

// Configuration

export interface RuleSetConfig extends cdktf.TerraformMetaArguments {
  /**
  * Id of the MCP server or LLM proxy.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#proxy_id RuleSet#proxy_id}
  */
  readonly proxyId: string;
  /**
  * mcp or llm.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#proxy_kind RuleSet#proxy_kind}
  */
  readonly proxyKind: string;
  /**
  * The whole ordered rule array; it replaces the stored one atomically. At most 100 rules, of which at most 20 lambda rules, per proxy. Set rule_type and that type's fields; the other fields stay unset.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#rules RuleSet#rules}
  */
  readonly rules: RuleSetRules[] | cdktf.IResolvable;
}
export interface RuleSetRules {
  /**
  * allow: only the listed addresses pass (default-deny); deny: the listed addresses are blocked. (ip_acl, prompt_guard)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#action RuleSet#action}
  */
  readonly action?: string;
  /**
  * (mcp_resource)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#audience RuleSet#audience}
  */
  readonly audience?: string[];
  /**
  * Ban the key after this many over-threshold requests. (rate_limit)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#ban_after_n_exceeded RuleSet#ban_after_n_exceeded}
  */
  readonly banAfterNExceeded?: number;
  /**
  * Ban duration in seconds. (rate_limit)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#ban_timespan RuleSet#ban_timespan}
  */
  readonly banTimespan?: number;
  /**
  * JWT claim names that identify a caller in jwt mode (a token with none of them is not cached). (static_cache)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#cache_identity_claims RuleSet#cache_identity_claims}
  */
  readonly cacheIdentityClaims?: string[];
  /**
  * per_identity: one slot per caller (credential id, or the JWT claims below); shared: one slot for all. (static_cache)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#cache_isolation RuleSet#cache_isolation}
  */
  readonly cacheIsolation?: string;
  /**
  * Seconds, 60 to 86400. (static_cache)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#cache_ttl RuleSet#cache_ttl}
  */
  readonly cacheTtl?: number;
  /**
  * Addresses or CIDRs; a bare address means /32 (v4) or /128 (v6). (ip_acl)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#cidrs RuleSet#cidrs}
  */
  readonly cidrs?: string[];
  /**
  * (mcp_resource)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#content RuleSet#content}
  */
  readonly content?: string;
  /**
  * (mcp_resource)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#description RuleSet#description}
  */
  readonly description?: string;
  /**
  * Detector ids from the catalogue (docs/prompt-guard.md). (prompt_guard)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#detectors RuleSet#detectors}
  */
  readonly detectors?: string[];
  /**
  * Opaque marker of a managed DLP rule. (response_replace)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#dlp_rule_id RuleSet#dlp_rule_id}
  */
  readonly dlpRuleId?: string;
  /**
  * Log and emit events but never block. (rate_limit)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#dryrun RuleSet#dryrun}
  */
  readonly dryrun?: boolean | cdktf.IResolvable;
  /**
  * Toggles the rule without deleting it. (ip_acl, lambda, mcp_resource, model_route, prompt_guard, prompt_replace, rate_limit, response_replace, static_cache, tool_description_inject)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#enabled RuleSet#enabled}
  */
  readonly enabled?: boolean | cdktf.IResolvable;
  /**
  * Also expose the content as a synthetic tool. (mcp_resource)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#expose_as_tool RuleSet#expose_as_tool}
  */
  readonly exposeAsTool?: boolean | cdktf.IResolvable;
  /**
  * Tools whose description gets a pointer to this resource. (mcp_resource)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#inject_into_tools RuleSet#inject_into_tools}
  */
  readonly injectIntoTools?: string[];
  /**
  * Where the text goes. (tool_description_inject)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#inject_position RuleSet#inject_position}
  */
  readonly injectPosition?: string;
  /**
  * Text added to the tool descriptions returned by tools/list. (tool_description_inject)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#inject_text RuleSet#inject_text}
  */
  readonly injectText?: string;
  /**
  * Lua source; sees only the svc table and setmetatable (docs/lambda.md). (lambda)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#lua_code RuleSet#lua_code}
  */
  readonly luaCode?: string;
  /**
  * What is counted per window; tokens_per_minute (LLM only) counts tokens instead of requests. (rate_limit)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#match_key RuleSet#match_key}
  */
  readonly matchKey?: string;
  /**
  * (mcp_resource)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#mime_type RuleSet#mime_type}
  */
  readonly mimeType?: string;
  /**
  * judge is accepted but inert at runtime. (prompt_guard)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#mode RuleSet#mode}
  */
  readonly mode?: string;
  /**
  * Human-readable id. (lambda, rate_limit)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#name RuleSet#name}
  */
  readonly name?: string;
  /**
  * Regular expression over the concatenated role=user message contents. (model_route, prompt_replace, response_replace)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#pattern RuleSet#pattern}
  */
  readonly pattern?: string;
  /**
  * access runs before forwarding; response (MCP only) after the upstream answers. (lambda, prompt_guard)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#phase RuleSet#phase}
  */
  readonly phase?: string;
  /**
  * (mcp_resource)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#priority RuleSet#priority}
  */
  readonly priority?: number;
  /**
  * i: case-insensitive, s: dot matches newline, m: ^ and $ match at line breaks. (model_route, prompt_replace, response_replace)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#regex_flags RuleSet#regex_flags}
  */
  readonly regexFlags?: string;
  /**
  * Replacement; $0..$9 allowed. (prompt_replace, response_replace)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#replacement RuleSet#replacement}
  */
  readonly replacement?: string;
  /**
  * Refresh the window on every hit (sliding window). (rate_limit)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#reset_expire_on_hit RuleSet#reset_expire_on_hit}
  */
  readonly resetExpireOnHit?: boolean | cdktf.IResolvable;
  /**
  * Stable id of the resource. (mcp_resource)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#resource_id RuleSet#resource_id}
  */
  readonly resourceId?: string;
  /**
  * (mcp_resource)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#resource_name RuleSet#resource_name}
  */
  readonly resourceName?: string;
  /**
  * Replacement for rewrite; $0..$9 allowed. (prompt_guard)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#rewrite_template RuleSet#rewrite_template}
  */
  readonly rewriteTemplate?: string;
  /**
  * One of ip_acl, lambda, mcp_resource, model_route, prompt_guard, prompt_replace, rate_limit, response_replace, static_cache, tool_description_inject.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#rule_type RuleSet#rule_type}
  */
  readonly ruleType: string;
  /**
  * Model the upstream receives when the pattern matches. (model_route)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#target_model RuleSet#target_model}
  */
  readonly targetModel?: string;
  /**
  * Requests (or tokens) allowed per window. (rate_limit)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#threshold RuleSet#threshold}
  */
  readonly threshold?: number;
  /**
  * Window length in seconds (60 for tokens_per_minute). (rate_limit)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#timespan RuleSet#timespan}
  */
  readonly timespan?: number;
  /**
  * Name of the synthetic tool (required with expose_as_tool). (mcp_resource)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#tool_name RuleSet#tool_name}
  */
  readonly toolName?: string;
  /**
  * Tool names the rule applies to, or ["*"] for all. On LLM proxies it is ["*"]. (ip_acl, lambda, mcp_resource, model_route, prompt_guard, prompt_replace, rate_limit, response_replace, static_cache, tool_description_inject)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#tools RuleSet#tools}
  */
  readonly tools?: string[];
  /**
  * URI served by resources/list and resources/read. (mcp_resource)
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#uri RuleSet#uri}
  */
  readonly uri?: string;
}

export function ruleSetRulesToTerraform(struct?: RuleSetRules | cdktf.IResolvable): any {
  if (!cdktf.canInspect(struct) || cdktf.Tokenization.isResolvable(struct)) { return struct; }
  if (cdktf.isComplexElement(struct)) {
    throw new Error("A complex element was used as configuration, this is not supported: https://cdk.tf/complex-object-as-configuration");
  }
  return {
    action: cdktf.stringToTerraform(struct!.action),
    audience: cdktf.listMapper(cdktf.stringToTerraform, false)(struct!.audience),
    ban_after_n_exceeded: cdktf.numberToTerraform(struct!.banAfterNExceeded),
    ban_timespan: cdktf.numberToTerraform(struct!.banTimespan),
    cache_identity_claims: cdktf.listMapper(cdktf.stringToTerraform, false)(struct!.cacheIdentityClaims),
    cache_isolation: cdktf.stringToTerraform(struct!.cacheIsolation),
    cache_ttl: cdktf.numberToTerraform(struct!.cacheTtl),
    cidrs: cdktf.listMapper(cdktf.stringToTerraform, false)(struct!.cidrs),
    content: cdktf.stringToTerraform(struct!.content),
    description: cdktf.stringToTerraform(struct!.description),
    detectors: cdktf.listMapper(cdktf.stringToTerraform, false)(struct!.detectors),
    dlp_rule_id: cdktf.stringToTerraform(struct!.dlpRuleId),
    dryrun: cdktf.booleanToTerraform(struct!.dryrun),
    enabled: cdktf.booleanToTerraform(struct!.enabled),
    expose_as_tool: cdktf.booleanToTerraform(struct!.exposeAsTool),
    inject_into_tools: cdktf.listMapper(cdktf.stringToTerraform, false)(struct!.injectIntoTools),
    inject_position: cdktf.stringToTerraform(struct!.injectPosition),
    inject_text: cdktf.stringToTerraform(struct!.injectText),
    lua_code: cdktf.stringToTerraform(struct!.luaCode),
    match_key: cdktf.stringToTerraform(struct!.matchKey),
    mime_type: cdktf.stringToTerraform(struct!.mimeType),
    mode: cdktf.stringToTerraform(struct!.mode),
    name: cdktf.stringToTerraform(struct!.name),
    pattern: cdktf.stringToTerraform(struct!.pattern),
    phase: cdktf.stringToTerraform(struct!.phase),
    priority: cdktf.numberToTerraform(struct!.priority),
    regex_flags: cdktf.stringToTerraform(struct!.regexFlags),
    replacement: cdktf.stringToTerraform(struct!.replacement),
    reset_expire_on_hit: cdktf.booleanToTerraform(struct!.resetExpireOnHit),
    resource_id: cdktf.stringToTerraform(struct!.resourceId),
    resource_name: cdktf.stringToTerraform(struct!.resourceName),
    rewrite_template: cdktf.stringToTerraform(struct!.rewriteTemplate),
    rule_type: cdktf.stringToTerraform(struct!.ruleType),
    target_model: cdktf.stringToTerraform(struct!.targetModel),
    threshold: cdktf.numberToTerraform(struct!.threshold),
    timespan: cdktf.numberToTerraform(struct!.timespan),
    tool_name: cdktf.stringToTerraform(struct!.toolName),
    tools: cdktf.listMapper(cdktf.stringToTerraform, false)(struct!.tools),
    uri: cdktf.stringToTerraform(struct!.uri),
  }
}


export function ruleSetRulesToHclTerraform(struct?: RuleSetRules | cdktf.IResolvable): any {
  if (!cdktf.canInspect(struct) || cdktf.Tokenization.isResolvable(struct)) { return struct; }
  if (cdktf.isComplexElement(struct)) {
    throw new Error("A complex element was used as configuration, this is not supported: https://cdk.tf/complex-object-as-configuration");
  }
  const attrs = {
    action: {
      value: cdktf.stringToHclTerraform(struct!.action),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    audience: {
      value: cdktf.listMapperHcl(cdktf.stringToHclTerraform, false)(struct!.audience),
      isBlock: false,
      type: "list",
      storageClassType: "stringList",
    },
    ban_after_n_exceeded: {
      value: cdktf.numberToHclTerraform(struct!.banAfterNExceeded),
      isBlock: false,
      type: "simple",
      storageClassType: "number",
    },
    ban_timespan: {
      value: cdktf.numberToHclTerraform(struct!.banTimespan),
      isBlock: false,
      type: "simple",
      storageClassType: "number",
    },
    cache_identity_claims: {
      value: cdktf.listMapperHcl(cdktf.stringToHclTerraform, false)(struct!.cacheIdentityClaims),
      isBlock: false,
      type: "list",
      storageClassType: "stringList",
    },
    cache_isolation: {
      value: cdktf.stringToHclTerraform(struct!.cacheIsolation),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    cache_ttl: {
      value: cdktf.numberToHclTerraform(struct!.cacheTtl),
      isBlock: false,
      type: "simple",
      storageClassType: "number",
    },
    cidrs: {
      value: cdktf.listMapperHcl(cdktf.stringToHclTerraform, false)(struct!.cidrs),
      isBlock: false,
      type: "list",
      storageClassType: "stringList",
    },
    content: {
      value: cdktf.stringToHclTerraform(struct!.content),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    description: {
      value: cdktf.stringToHclTerraform(struct!.description),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    detectors: {
      value: cdktf.listMapperHcl(cdktf.stringToHclTerraform, false)(struct!.detectors),
      isBlock: false,
      type: "list",
      storageClassType: "stringList",
    },
    dlp_rule_id: {
      value: cdktf.stringToHclTerraform(struct!.dlpRuleId),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    dryrun: {
      value: cdktf.booleanToHclTerraform(struct!.dryrun),
      isBlock: false,
      type: "simple",
      storageClassType: "boolean",
    },
    enabled: {
      value: cdktf.booleanToHclTerraform(struct!.enabled),
      isBlock: false,
      type: "simple",
      storageClassType: "boolean",
    },
    expose_as_tool: {
      value: cdktf.booleanToHclTerraform(struct!.exposeAsTool),
      isBlock: false,
      type: "simple",
      storageClassType: "boolean",
    },
    inject_into_tools: {
      value: cdktf.listMapperHcl(cdktf.stringToHclTerraform, false)(struct!.injectIntoTools),
      isBlock: false,
      type: "list",
      storageClassType: "stringList",
    },
    inject_position: {
      value: cdktf.stringToHclTerraform(struct!.injectPosition),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    inject_text: {
      value: cdktf.stringToHclTerraform(struct!.injectText),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    lua_code: {
      value: cdktf.stringToHclTerraform(struct!.luaCode),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    match_key: {
      value: cdktf.stringToHclTerraform(struct!.matchKey),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    mime_type: {
      value: cdktf.stringToHclTerraform(struct!.mimeType),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    mode: {
      value: cdktf.stringToHclTerraform(struct!.mode),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    name: {
      value: cdktf.stringToHclTerraform(struct!.name),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    pattern: {
      value: cdktf.stringToHclTerraform(struct!.pattern),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    phase: {
      value: cdktf.stringToHclTerraform(struct!.phase),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    priority: {
      value: cdktf.numberToHclTerraform(struct!.priority),
      isBlock: false,
      type: "simple",
      storageClassType: "number",
    },
    regex_flags: {
      value: cdktf.stringToHclTerraform(struct!.regexFlags),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    replacement: {
      value: cdktf.stringToHclTerraform(struct!.replacement),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    reset_expire_on_hit: {
      value: cdktf.booleanToHclTerraform(struct!.resetExpireOnHit),
      isBlock: false,
      type: "simple",
      storageClassType: "boolean",
    },
    resource_id: {
      value: cdktf.stringToHclTerraform(struct!.resourceId),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    resource_name: {
      value: cdktf.stringToHclTerraform(struct!.resourceName),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    rewrite_template: {
      value: cdktf.stringToHclTerraform(struct!.rewriteTemplate),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    rule_type: {
      value: cdktf.stringToHclTerraform(struct!.ruleType),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    target_model: {
      value: cdktf.stringToHclTerraform(struct!.targetModel),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    threshold: {
      value: cdktf.numberToHclTerraform(struct!.threshold),
      isBlock: false,
      type: "simple",
      storageClassType: "number",
    },
    timespan: {
      value: cdktf.numberToHclTerraform(struct!.timespan),
      isBlock: false,
      type: "simple",
      storageClassType: "number",
    },
    tool_name: {
      value: cdktf.stringToHclTerraform(struct!.toolName),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    tools: {
      value: cdktf.listMapperHcl(cdktf.stringToHclTerraform, false)(struct!.tools),
      isBlock: false,
      type: "list",
      storageClassType: "stringList",
    },
    uri: {
      value: cdktf.stringToHclTerraform(struct!.uri),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
  };

  // remove undefined attributes
  return Object.fromEntries(Object.entries(attrs).filter(([_, value]) => value !== undefined && value.value !== undefined));
}

export class RuleSetRulesOutputReference extends cdktf.ComplexObject {
  private isEmptyObject = false;
  private resolvableValue?: cdktf.IResolvable;

  /**
  * @param terraformResource The parent resource
  * @param terraformAttribute The attribute on the parent resource this class is referencing
  * @param complexObjectIndex the index of this item in the list
  * @param complexObjectIsFromSet whether the list is wrapping a set (will add tolist() to be able to access an item via an index)
  */
  public constructor(terraformResource: cdktf.IInterpolatingParent, terraformAttribute: string, complexObjectIndex: number, complexObjectIsFromSet: boolean) {
    super(terraformResource, terraformAttribute, complexObjectIsFromSet, complexObjectIndex);
  }

  public get internalValue(): RuleSetRules | cdktf.IResolvable | undefined {
    if (this.resolvableValue) {
      return this.resolvableValue;
    }
    let hasAnyValues = this.isEmptyObject;
    const internalValueResult: any = {};
    if (this._action !== undefined) {
      hasAnyValues = true;
      internalValueResult.action = this._action;
    }
    if (this._audience !== undefined) {
      hasAnyValues = true;
      internalValueResult.audience = this._audience;
    }
    if (this._banAfterNExceeded !== undefined) {
      hasAnyValues = true;
      internalValueResult.banAfterNExceeded = this._banAfterNExceeded;
    }
    if (this._banTimespan !== undefined) {
      hasAnyValues = true;
      internalValueResult.banTimespan = this._banTimespan;
    }
    if (this._cacheIdentityClaims !== undefined) {
      hasAnyValues = true;
      internalValueResult.cacheIdentityClaims = this._cacheIdentityClaims;
    }
    if (this._cacheIsolation !== undefined) {
      hasAnyValues = true;
      internalValueResult.cacheIsolation = this._cacheIsolation;
    }
    if (this._cacheTtl !== undefined) {
      hasAnyValues = true;
      internalValueResult.cacheTtl = this._cacheTtl;
    }
    if (this._cidrs !== undefined) {
      hasAnyValues = true;
      internalValueResult.cidrs = this._cidrs;
    }
    if (this._content !== undefined) {
      hasAnyValues = true;
      internalValueResult.content = this._content;
    }
    if (this._description !== undefined) {
      hasAnyValues = true;
      internalValueResult.description = this._description;
    }
    if (this._detectors !== undefined) {
      hasAnyValues = true;
      internalValueResult.detectors = this._detectors;
    }
    if (this._dlpRuleId !== undefined) {
      hasAnyValues = true;
      internalValueResult.dlpRuleId = this._dlpRuleId;
    }
    if (this._dryrun !== undefined) {
      hasAnyValues = true;
      internalValueResult.dryrun = this._dryrun;
    }
    if (this._enabled !== undefined) {
      hasAnyValues = true;
      internalValueResult.enabled = this._enabled;
    }
    if (this._exposeAsTool !== undefined) {
      hasAnyValues = true;
      internalValueResult.exposeAsTool = this._exposeAsTool;
    }
    if (this._injectIntoTools !== undefined) {
      hasAnyValues = true;
      internalValueResult.injectIntoTools = this._injectIntoTools;
    }
    if (this._injectPosition !== undefined) {
      hasAnyValues = true;
      internalValueResult.injectPosition = this._injectPosition;
    }
    if (this._injectText !== undefined) {
      hasAnyValues = true;
      internalValueResult.injectText = this._injectText;
    }
    if (this._luaCode !== undefined) {
      hasAnyValues = true;
      internalValueResult.luaCode = this._luaCode;
    }
    if (this._matchKey !== undefined) {
      hasAnyValues = true;
      internalValueResult.matchKey = this._matchKey;
    }
    if (this._mimeType !== undefined) {
      hasAnyValues = true;
      internalValueResult.mimeType = this._mimeType;
    }
    if (this._mode !== undefined) {
      hasAnyValues = true;
      internalValueResult.mode = this._mode;
    }
    if (this._name !== undefined) {
      hasAnyValues = true;
      internalValueResult.name = this._name;
    }
    if (this._pattern !== undefined) {
      hasAnyValues = true;
      internalValueResult.pattern = this._pattern;
    }
    if (this._phase !== undefined) {
      hasAnyValues = true;
      internalValueResult.phase = this._phase;
    }
    if (this._priority !== undefined) {
      hasAnyValues = true;
      internalValueResult.priority = this._priority;
    }
    if (this._regexFlags !== undefined) {
      hasAnyValues = true;
      internalValueResult.regexFlags = this._regexFlags;
    }
    if (this._replacement !== undefined) {
      hasAnyValues = true;
      internalValueResult.replacement = this._replacement;
    }
    if (this._resetExpireOnHit !== undefined) {
      hasAnyValues = true;
      internalValueResult.resetExpireOnHit = this._resetExpireOnHit;
    }
    if (this._resourceId !== undefined) {
      hasAnyValues = true;
      internalValueResult.resourceId = this._resourceId;
    }
    if (this._resourceName !== undefined) {
      hasAnyValues = true;
      internalValueResult.resourceName = this._resourceName;
    }
    if (this._rewriteTemplate !== undefined) {
      hasAnyValues = true;
      internalValueResult.rewriteTemplate = this._rewriteTemplate;
    }
    if (this._ruleType !== undefined) {
      hasAnyValues = true;
      internalValueResult.ruleType = this._ruleType;
    }
    if (this._targetModel !== undefined) {
      hasAnyValues = true;
      internalValueResult.targetModel = this._targetModel;
    }
    if (this._threshold !== undefined) {
      hasAnyValues = true;
      internalValueResult.threshold = this._threshold;
    }
    if (this._timespan !== undefined) {
      hasAnyValues = true;
      internalValueResult.timespan = this._timespan;
    }
    if (this._toolName !== undefined) {
      hasAnyValues = true;
      internalValueResult.toolName = this._toolName;
    }
    if (this._tools !== undefined) {
      hasAnyValues = true;
      internalValueResult.tools = this._tools;
    }
    if (this._uri !== undefined) {
      hasAnyValues = true;
      internalValueResult.uri = this._uri;
    }
    return hasAnyValues ? internalValueResult : undefined;
  }

  public set internalValue(value: RuleSetRules | cdktf.IResolvable | undefined) {
    if (value === undefined) {
      this.isEmptyObject = false;
      this.resolvableValue = undefined;
      this._action = undefined;
      this._audience = undefined;
      this._banAfterNExceeded = undefined;
      this._banTimespan = undefined;
      this._cacheIdentityClaims = undefined;
      this._cacheIsolation = undefined;
      this._cacheTtl = undefined;
      this._cidrs = undefined;
      this._content = undefined;
      this._description = undefined;
      this._detectors = undefined;
      this._dlpRuleId = undefined;
      this._dryrun = undefined;
      this._enabled = undefined;
      this._exposeAsTool = undefined;
      this._injectIntoTools = undefined;
      this._injectPosition = undefined;
      this._injectText = undefined;
      this._luaCode = undefined;
      this._matchKey = undefined;
      this._mimeType = undefined;
      this._mode = undefined;
      this._name = undefined;
      this._pattern = undefined;
      this._phase = undefined;
      this._priority = undefined;
      this._regexFlags = undefined;
      this._replacement = undefined;
      this._resetExpireOnHit = undefined;
      this._resourceId = undefined;
      this._resourceName = undefined;
      this._rewriteTemplate = undefined;
      this._ruleType = undefined;
      this._targetModel = undefined;
      this._threshold = undefined;
      this._timespan = undefined;
      this._toolName = undefined;
      this._tools = undefined;
      this._uri = undefined;
    }
    else if (cdktf.Tokenization.isResolvable(value)) {
      this.isEmptyObject = false;
      this.resolvableValue = value;
    }
    else {
      this.isEmptyObject = Object.keys(value).length === 0;
      this.resolvableValue = undefined;
      this._action = value.action;
      this._audience = value.audience;
      this._banAfterNExceeded = value.banAfterNExceeded;
      this._banTimespan = value.banTimespan;
      this._cacheIdentityClaims = value.cacheIdentityClaims;
      this._cacheIsolation = value.cacheIsolation;
      this._cacheTtl = value.cacheTtl;
      this._cidrs = value.cidrs;
      this._content = value.content;
      this._description = value.description;
      this._detectors = value.detectors;
      this._dlpRuleId = value.dlpRuleId;
      this._dryrun = value.dryrun;
      this._enabled = value.enabled;
      this._exposeAsTool = value.exposeAsTool;
      this._injectIntoTools = value.injectIntoTools;
      this._injectPosition = value.injectPosition;
      this._injectText = value.injectText;
      this._luaCode = value.luaCode;
      this._matchKey = value.matchKey;
      this._mimeType = value.mimeType;
      this._mode = value.mode;
      this._name = value.name;
      this._pattern = value.pattern;
      this._phase = value.phase;
      this._priority = value.priority;
      this._regexFlags = value.regexFlags;
      this._replacement = value.replacement;
      this._resetExpireOnHit = value.resetExpireOnHit;
      this._resourceId = value.resourceId;
      this._resourceName = value.resourceName;
      this._rewriteTemplate = value.rewriteTemplate;
      this._ruleType = value.ruleType;
      this._targetModel = value.targetModel;
      this._threshold = value.threshold;
      this._timespan = value.timespan;
      this._toolName = value.toolName;
      this._tools = value.tools;
      this._uri = value.uri;
    }
  }

  // action - computed: true, optional: true, required: false
  private _action?: string; 
  public get action() {
    return this.getStringAttribute('action');
  }
  public set action(value: string) {
    this._action = value;
  }
  public resetAction() {
    this._action = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get actionInput() {
    return this._action;
  }

  // audience - computed: true, optional: true, required: false
  private _audience?: string[]; 
  public get audience() {
    return this.getListAttribute('audience');
  }
  public set audience(value: string[]) {
    this._audience = value;
  }
  public resetAudience() {
    this._audience = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get audienceInput() {
    return this._audience;
  }

  // ban_after_n_exceeded - computed: true, optional: true, required: false
  private _banAfterNExceeded?: number; 
  public get banAfterNExceeded() {
    return this.getNumberAttribute('ban_after_n_exceeded');
  }
  public set banAfterNExceeded(value: number) {
    this._banAfterNExceeded = value;
  }
  public resetBanAfterNExceeded() {
    this._banAfterNExceeded = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get banAfterNExceededInput() {
    return this._banAfterNExceeded;
  }

  // ban_timespan - computed: true, optional: true, required: false
  private _banTimespan?: number; 
  public get banTimespan() {
    return this.getNumberAttribute('ban_timespan');
  }
  public set banTimespan(value: number) {
    this._banTimespan = value;
  }
  public resetBanTimespan() {
    this._banTimespan = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get banTimespanInput() {
    return this._banTimespan;
  }

  // cache_identity_claims - computed: true, optional: true, required: false
  private _cacheIdentityClaims?: string[]; 
  public get cacheIdentityClaims() {
    return this.getListAttribute('cache_identity_claims');
  }
  public set cacheIdentityClaims(value: string[]) {
    this._cacheIdentityClaims = value;
  }
  public resetCacheIdentityClaims() {
    this._cacheIdentityClaims = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get cacheIdentityClaimsInput() {
    return this._cacheIdentityClaims;
  }

  // cache_isolation - computed: true, optional: true, required: false
  private _cacheIsolation?: string; 
  public get cacheIsolation() {
    return this.getStringAttribute('cache_isolation');
  }
  public set cacheIsolation(value: string) {
    this._cacheIsolation = value;
  }
  public resetCacheIsolation() {
    this._cacheIsolation = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get cacheIsolationInput() {
    return this._cacheIsolation;
  }

  // cache_ttl - computed: true, optional: true, required: false
  private _cacheTtl?: number; 
  public get cacheTtl() {
    return this.getNumberAttribute('cache_ttl');
  }
  public set cacheTtl(value: number) {
    this._cacheTtl = value;
  }
  public resetCacheTtl() {
    this._cacheTtl = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get cacheTtlInput() {
    return this._cacheTtl;
  }

  // cidrs - computed: true, optional: true, required: false
  private _cidrs?: string[]; 
  public get cidrs() {
    return this.getListAttribute('cidrs');
  }
  public set cidrs(value: string[]) {
    this._cidrs = value;
  }
  public resetCidrs() {
    this._cidrs = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get cidrsInput() {
    return this._cidrs;
  }

  // content - computed: true, optional: true, required: false
  private _content?: string; 
  public get content() {
    return this.getStringAttribute('content');
  }
  public set content(value: string) {
    this._content = value;
  }
  public resetContent() {
    this._content = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get contentInput() {
    return this._content;
  }

  // description - computed: true, optional: true, required: false
  private _description?: string; 
  public get description() {
    return this.getStringAttribute('description');
  }
  public set description(value: string) {
    this._description = value;
  }
  public resetDescription() {
    this._description = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get descriptionInput() {
    return this._description;
  }

  // detectors - computed: true, optional: true, required: false
  private _detectors?: string[]; 
  public get detectors() {
    return this.getListAttribute('detectors');
  }
  public set detectors(value: string[]) {
    this._detectors = value;
  }
  public resetDetectors() {
    this._detectors = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get detectorsInput() {
    return this._detectors;
  }

  // dlp_rule_id - computed: true, optional: true, required: false
  private _dlpRuleId?: string; 
  public get dlpRuleId() {
    return this.getStringAttribute('dlp_rule_id');
  }
  public set dlpRuleId(value: string) {
    this._dlpRuleId = value;
  }
  public resetDlpRuleId() {
    this._dlpRuleId = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get dlpRuleIdInput() {
    return this._dlpRuleId;
  }

  // dryrun - computed: true, optional: true, required: false
  private _dryrun?: boolean | cdktf.IResolvable; 
  public get dryrun() {
    return this.getBooleanAttribute('dryrun');
  }
  public set dryrun(value: boolean | cdktf.IResolvable) {
    this._dryrun = value;
  }
  public resetDryrun() {
    this._dryrun = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get dryrunInput() {
    return this._dryrun;
  }

  // enabled - computed: true, optional: true, required: false
  private _enabled?: boolean | cdktf.IResolvable; 
  public get enabled() {
    return this.getBooleanAttribute('enabled');
  }
  public set enabled(value: boolean | cdktf.IResolvable) {
    this._enabled = value;
  }
  public resetEnabled() {
    this._enabled = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get enabledInput() {
    return this._enabled;
  }

  // expose_as_tool - computed: true, optional: true, required: false
  private _exposeAsTool?: boolean | cdktf.IResolvable; 
  public get exposeAsTool() {
    return this.getBooleanAttribute('expose_as_tool');
  }
  public set exposeAsTool(value: boolean | cdktf.IResolvable) {
    this._exposeAsTool = value;
  }
  public resetExposeAsTool() {
    this._exposeAsTool = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get exposeAsToolInput() {
    return this._exposeAsTool;
  }

  // inject_into_tools - computed: true, optional: true, required: false
  private _injectIntoTools?: string[]; 
  public get injectIntoTools() {
    return this.getListAttribute('inject_into_tools');
  }
  public set injectIntoTools(value: string[]) {
    this._injectIntoTools = value;
  }
  public resetInjectIntoTools() {
    this._injectIntoTools = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get injectIntoToolsInput() {
    return this._injectIntoTools;
  }

  // inject_position - computed: true, optional: true, required: false
  private _injectPosition?: string; 
  public get injectPosition() {
    return this.getStringAttribute('inject_position');
  }
  public set injectPosition(value: string) {
    this._injectPosition = value;
  }
  public resetInjectPosition() {
    this._injectPosition = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get injectPositionInput() {
    return this._injectPosition;
  }

  // inject_text - computed: true, optional: true, required: false
  private _injectText?: string; 
  public get injectText() {
    return this.getStringAttribute('inject_text');
  }
  public set injectText(value: string) {
    this._injectText = value;
  }
  public resetInjectText() {
    this._injectText = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get injectTextInput() {
    return this._injectText;
  }

  // lua_code - computed: true, optional: true, required: false
  private _luaCode?: string; 
  public get luaCode() {
    return this.getStringAttribute('lua_code');
  }
  public set luaCode(value: string) {
    this._luaCode = value;
  }
  public resetLuaCode() {
    this._luaCode = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get luaCodeInput() {
    return this._luaCode;
  }

  // match_key - computed: true, optional: true, required: false
  private _matchKey?: string; 
  public get matchKey() {
    return this.getStringAttribute('match_key');
  }
  public set matchKey(value: string) {
    this._matchKey = value;
  }
  public resetMatchKey() {
    this._matchKey = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get matchKeyInput() {
    return this._matchKey;
  }

  // mime_type - computed: true, optional: true, required: false
  private _mimeType?: string; 
  public get mimeType() {
    return this.getStringAttribute('mime_type');
  }
  public set mimeType(value: string) {
    this._mimeType = value;
  }
  public resetMimeType() {
    this._mimeType = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get mimeTypeInput() {
    return this._mimeType;
  }

  // mode - computed: true, optional: true, required: false
  private _mode?: string; 
  public get mode() {
    return this.getStringAttribute('mode');
  }
  public set mode(value: string) {
    this._mode = value;
  }
  public resetMode() {
    this._mode = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get modeInput() {
    return this._mode;
  }

  // name - computed: true, optional: true, required: false
  private _name?: string; 
  public get name() {
    return this.getStringAttribute('name');
  }
  public set name(value: string) {
    this._name = value;
  }
  public resetName() {
    this._name = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get nameInput() {
    return this._name;
  }

  // pattern - computed: true, optional: true, required: false
  private _pattern?: string; 
  public get pattern() {
    return this.getStringAttribute('pattern');
  }
  public set pattern(value: string) {
    this._pattern = value;
  }
  public resetPattern() {
    this._pattern = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get patternInput() {
    return this._pattern;
  }

  // phase - computed: true, optional: true, required: false
  private _phase?: string; 
  public get phase() {
    return this.getStringAttribute('phase');
  }
  public set phase(value: string) {
    this._phase = value;
  }
  public resetPhase() {
    this._phase = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get phaseInput() {
    return this._phase;
  }

  // priority - computed: true, optional: true, required: false
  private _priority?: number; 
  public get priority() {
    return this.getNumberAttribute('priority');
  }
  public set priority(value: number) {
    this._priority = value;
  }
  public resetPriority() {
    this._priority = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get priorityInput() {
    return this._priority;
  }

  // regex_flags - computed: true, optional: true, required: false
  private _regexFlags?: string; 
  public get regexFlags() {
    return this.getStringAttribute('regex_flags');
  }
  public set regexFlags(value: string) {
    this._regexFlags = value;
  }
  public resetRegexFlags() {
    this._regexFlags = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get regexFlagsInput() {
    return this._regexFlags;
  }

  // replacement - computed: true, optional: true, required: false
  private _replacement?: string; 
  public get replacement() {
    return this.getStringAttribute('replacement');
  }
  public set replacement(value: string) {
    this._replacement = value;
  }
  public resetReplacement() {
    this._replacement = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get replacementInput() {
    return this._replacement;
  }

  // reset_expire_on_hit - computed: true, optional: true, required: false
  private _resetExpireOnHit?: boolean | cdktf.IResolvable; 
  public get resetExpireOnHit() {
    return this.getBooleanAttribute('reset_expire_on_hit');
  }
  public set resetExpireOnHit(value: boolean | cdktf.IResolvable) {
    this._resetExpireOnHit = value;
  }
  public resetResetExpireOnHit() {
    this._resetExpireOnHit = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get resetExpireOnHitInput() {
    return this._resetExpireOnHit;
  }

  // resource_id - computed: true, optional: true, required: false
  private _resourceId?: string; 
  public get resourceId() {
    return this.getStringAttribute('resource_id');
  }
  public set resourceId(value: string) {
    this._resourceId = value;
  }
  public resetResourceId() {
    this._resourceId = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get resourceIdInput() {
    return this._resourceId;
  }

  // resource_name - computed: true, optional: true, required: false
  private _resourceName?: string; 
  public get resourceName() {
    return this.getStringAttribute('resource_name');
  }
  public set resourceName(value: string) {
    this._resourceName = value;
  }
  public resetResourceName() {
    this._resourceName = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get resourceNameInput() {
    return this._resourceName;
  }

  // rewrite_template - computed: true, optional: true, required: false
  private _rewriteTemplate?: string; 
  public get rewriteTemplate() {
    return this.getStringAttribute('rewrite_template');
  }
  public set rewriteTemplate(value: string) {
    this._rewriteTemplate = value;
  }
  public resetRewriteTemplate() {
    this._rewriteTemplate = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get rewriteTemplateInput() {
    return this._rewriteTemplate;
  }

  // rule_type - computed: false, optional: false, required: true
  private _ruleType?: string; 
  public get ruleType() {
    return this.getStringAttribute('rule_type');
  }
  public set ruleType(value: string) {
    this._ruleType = value;
  }
  // Temporarily expose input value. Use with caution.
  public get ruleTypeInput() {
    return this._ruleType;
  }

  // target_model - computed: true, optional: true, required: false
  private _targetModel?: string; 
  public get targetModel() {
    return this.getStringAttribute('target_model');
  }
  public set targetModel(value: string) {
    this._targetModel = value;
  }
  public resetTargetModel() {
    this._targetModel = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get targetModelInput() {
    return this._targetModel;
  }

  // threshold - computed: true, optional: true, required: false
  private _threshold?: number; 
  public get threshold() {
    return this.getNumberAttribute('threshold');
  }
  public set threshold(value: number) {
    this._threshold = value;
  }
  public resetThreshold() {
    this._threshold = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get thresholdInput() {
    return this._threshold;
  }

  // timespan - computed: true, optional: true, required: false
  private _timespan?: number; 
  public get timespan() {
    return this.getNumberAttribute('timespan');
  }
  public set timespan(value: number) {
    this._timespan = value;
  }
  public resetTimespan() {
    this._timespan = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get timespanInput() {
    return this._timespan;
  }

  // tool_name - computed: true, optional: true, required: false
  private _toolName?: string; 
  public get toolName() {
    return this.getStringAttribute('tool_name');
  }
  public set toolName(value: string) {
    this._toolName = value;
  }
  public resetToolName() {
    this._toolName = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get toolNameInput() {
    return this._toolName;
  }

  // tools - computed: true, optional: true, required: false
  private _tools?: string[]; 
  public get tools() {
    return this.getListAttribute('tools');
  }
  public set tools(value: string[]) {
    this._tools = value;
  }
  public resetTools() {
    this._tools = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get toolsInput() {
    return this._tools;
  }

  // uri - computed: true, optional: true, required: false
  private _uri?: string; 
  public get uri() {
    return this.getStringAttribute('uri');
  }
  public set uri(value: string) {
    this._uri = value;
  }
  public resetUri() {
    this._uri = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get uriInput() {
    return this._uri;
  }
}

export class RuleSetRulesList extends cdktf.ComplexList {
  public internalValue? : RuleSetRules[] | cdktf.IResolvable

  /**
  * @param terraformResource The parent resource
  * @param terraformAttribute The attribute on the parent resource this class is referencing
  * @param wrapsSet whether the list is wrapping a set (will add tolist() to be able to access an item via an index)
  */
  constructor(protected terraformResource: cdktf.IInterpolatingParent, protected terraformAttribute: string, protected wrapsSet: boolean) {
    super(terraformResource, terraformAttribute, wrapsSet)
  }

  /**
  * @param index the index of the item to return
  */
  public get(index: number): RuleSetRulesOutputReference {
    return new RuleSetRulesOutputReference(this.terraformResource, this.terraformAttribute, index, this.wrapsSet);
  }
}

/**
* Represents a {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set tollgate_rule_set}
*/
export class RuleSet extends cdktf.TerraformResource {

  // =================
  // STATIC PROPERTIES
  // =================
  public static readonly tfResourceType = "tollgate_rule_set";

  // ==============
  // STATIC Methods
  // ==============
  /**
  * Generates CDKTF code for importing a RuleSet resource upon running "cdktf plan <stack-name>"
  * @param scope The scope in which to define this construct
  * @param importToId The construct id used in the generated config for the RuleSet to import
  * @param importFromId The id of the existing RuleSet that should be imported. Refer to the {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set#import import section} in the documentation of this resource for the id to use
  * @param provider? Optional instance of the provider where the RuleSet to import is found
  */
  public static generateConfigForImport(scope: Construct, importToId: string, importFromId: string, provider?: cdktf.TerraformProvider) {
        return new cdktf.ImportableResource(scope, importToId, { terraformResourceType: "tollgate_rule_set", importId: importFromId, provider });
      }

  // ===========
  // INITIALIZER
  // ===========

  /**
  * Create a new {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/rule_set tollgate_rule_set} Resource
  *
  * @param scope The scope in which to define this construct
  * @param id The scoped construct ID. Must be unique amongst siblings in the same scope
  * @param options RuleSetConfig
  */
  public constructor(scope: Construct, id: string, config: RuleSetConfig) {
    super(scope, id, {
      terraformResourceType: 'tollgate_rule_set',
      terraformGeneratorMetadata: {
        providerName: 'tollgate'
      },
      provider: config.provider,
      dependsOn: config.dependsOn,
      count: config.count,
      lifecycle: config.lifecycle,
      provisioners: config.provisioners,
      connection: config.connection,
      forEach: config.forEach
    });
    this._proxyId = config.proxyId;
    this._proxyKind = config.proxyKind;
    this._rules.internalValue = config.rules;
  }

  // ==========
  // ATTRIBUTES
  // ==========

  // id - computed: true, optional: false, required: false
  public get id() {
    return this.getStringAttribute('id');
  }

  // proxy_id - computed: false, optional: false, required: true
  private _proxyId?: string; 
  public get proxyId() {
    return this.getStringAttribute('proxy_id');
  }
  public set proxyId(value: string) {
    this._proxyId = value;
  }
  // Temporarily expose input value. Use with caution.
  public get proxyIdInput() {
    return this._proxyId;
  }

  // proxy_kind - computed: false, optional: false, required: true
  private _proxyKind?: string; 
  public get proxyKind() {
    return this.getStringAttribute('proxy_kind');
  }
  public set proxyKind(value: string) {
    this._proxyKind = value;
  }
  // Temporarily expose input value. Use with caution.
  public get proxyKindInput() {
    return this._proxyKind;
  }

  // rules - computed: false, optional: false, required: true
  private _rules = new RuleSetRulesList(this, "rules", false);
  public get rules() {
    return this._rules;
  }
  public putRules(value: RuleSetRules[] | cdktf.IResolvable) {
    this._rules.internalValue = value;
  }
  // Temporarily expose input value. Use with caution.
  public get rulesInput() {
    return this._rules.internalValue;
  }

  // =========
  // SYNTHESIS
  // =========

  protected synthesizeAttributes(): { [name: string]: any } {
    return {
      proxy_id: cdktf.stringToTerraform(this._proxyId),
      proxy_kind: cdktf.stringToTerraform(this._proxyKind),
      rules: cdktf.listMapper(ruleSetRulesToTerraform, false)(this._rules.internalValue),
    };
  }

  protected synthesizeHclAttributes(): { [name: string]: any } {
    const attrs = {
      proxy_id: {
        value: cdktf.stringToHclTerraform(this._proxyId),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      proxy_kind: {
        value: cdktf.stringToHclTerraform(this._proxyKind),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      rules: {
        value: cdktf.listMapperHcl(ruleSetRulesToHclTerraform, false)(this._rules.internalValue),
        isBlock: true,
        type: "list",
        storageClassType: "RuleSetRulesList",
      },
    };

    // remove undefined attributes
    return Object.fromEntries(Object.entries(attrs).filter(([_, value]) => value !== undefined && value.value !== undefined ))
  }
}
