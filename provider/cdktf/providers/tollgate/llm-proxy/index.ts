// https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy
// generated from terraform resource schema

import { Construct } from 'constructs';
import * as cdktf from 'cdktf';

// Configuration

export interface LlmProxyConfig extends cdktf.TerraformMetaArguments {
  /**
  * Models clients may use; an empty array allows every model of the provider.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#allowed_models LlmProxy#allowed_models}
  */
  readonly allowedModels?: string[];
  /**
  * Inbound auth; null means client API keys (svc_api_key).
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#auth LlmProxy#auth}
  */
  readonly auth?: LlmProxyAuth;
  /**
  * Proxy-level budget; null means none.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#budget LlmProxy#budget}
  */
  readonly budget?: LlmProxyBudget;
  /**
  * Model for clients that send none and for the dashboard; the gateway does not rewrite requests with it.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#default_model LlmProxy#default_model}
  */
  readonly defaultModel?: string;
  /**
  * The LLM provider: openai, anthropic, gemini or mistral. The REST field is provider; terraform reserves that name.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#llm_provider LlmProxy#llm_provider}
  */
  readonly llmProvider: string;
  /**
  * Store prompts and completions, encrypted, for 7 days. Default false.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#log_conversations LlmProxy#log_conversations}
  */
  readonly logConversations?: boolean | cdktf.IResolvable;
  /**
  * Human-readable name.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#name LlmProxy#name}
  */
  readonly name: string;
  /**
  * Write-only upstream key, encrypted at rest and never returned; null removes it. Stored in the Terraform state (sensitive); use provider_key_wo to keep it out.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#provider_key LlmProxy#provider_key}
  */
  readonly providerKey?: string;
  /**
  * Write-only form of provider_key (Terraform 1.11+): sent to the server, never stored in state. Change provider_key_wo_version to send a new value.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#provider_key_wo LlmProxy#provider_key_wo}
  */
  readonly providerKeyWo?: string;
  /**
  * Any number; changing it sends provider_key_wo again.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#provider_key_wo_version LlmProxy#provider_key_wo_version}
  */
  readonly providerKeyWoVersion?: number;
}
export interface LlmProxyAuth {
  /**
  * A value the aud claim of every token must hold; required in jwt mode.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#audience LlmProxy#audience}
  */
  readonly audience?: string;
  /**
  * Clock-skew tolerance in seconds. Default 30.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#clock_skew_s LlmProxy#clock_skew_s}
  */
  readonly clockSkewS?: number;
  /**
  * The iss claim every token must carry; required in jwt mode.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#issuer LlmProxy#issuer}
  */
  readonly issuer?: string;
  /**
  * A JWKS document, JSON-encoded as a string (jwt mode). Use jsonencode().
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#jwks_json LlmProxy#jwks_json}
  */
  readonly jwksJson?: string;
  /**
  * svc_api_key: client keys minted by Tollgate; jwt: JWTs checked against jwksJson. Default svc_api_key.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#mode LlmProxy#mode}
  */
  readonly mode?: string;
}

export function llmProxyAuthToTerraform(struct?: LlmProxyAuth | cdktf.IResolvable): any {
  if (!cdktf.canInspect(struct) || cdktf.Tokenization.isResolvable(struct)) { return struct; }
  if (cdktf.isComplexElement(struct)) {
    throw new Error("A complex element was used as configuration, this is not supported: https://cdk.tf/complex-object-as-configuration");
  }
  return {
    audience: cdktf.stringToTerraform(struct!.audience),
    clock_skew_s: cdktf.numberToTerraform(struct!.clockSkewS),
    issuer: cdktf.stringToTerraform(struct!.issuer),
    jwks_json: cdktf.stringToTerraform(struct!.jwksJson),
    mode: cdktf.stringToTerraform(struct!.mode),
  }
}


export function llmProxyAuthToHclTerraform(struct?: LlmProxyAuth | cdktf.IResolvable): any {
  if (!cdktf.canInspect(struct) || cdktf.Tokenization.isResolvable(struct)) { return struct; }
  if (cdktf.isComplexElement(struct)) {
    throw new Error("A complex element was used as configuration, this is not supported: https://cdk.tf/complex-object-as-configuration");
  }
  const attrs = {
    audience: {
      value: cdktf.stringToHclTerraform(struct!.audience),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    clock_skew_s: {
      value: cdktf.numberToHclTerraform(struct!.clockSkewS),
      isBlock: false,
      type: "simple",
      storageClassType: "number",
    },
    issuer: {
      value: cdktf.stringToHclTerraform(struct!.issuer),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    jwks_json: {
      value: cdktf.stringToHclTerraform(struct!.jwksJson),
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
  };

  // remove undefined attributes
  return Object.fromEntries(Object.entries(attrs).filter(([_, value]) => value !== undefined && value.value !== undefined));
}

export class LlmProxyAuthOutputReference extends cdktf.ComplexObject {
  private isEmptyObject = false;
  private resolvableValue?: cdktf.IResolvable;

  /**
  * @param terraformResource The parent resource
  * @param terraformAttribute The attribute on the parent resource this class is referencing
  */
  public constructor(terraformResource: cdktf.IInterpolatingParent, terraformAttribute: string) {
    super(terraformResource, terraformAttribute, false);
  }

  public get internalValue(): LlmProxyAuth | cdktf.IResolvable | undefined {
    if (this.resolvableValue) {
      return this.resolvableValue;
    }
    let hasAnyValues = this.isEmptyObject;
    const internalValueResult: any = {};
    if (this._audience !== undefined) {
      hasAnyValues = true;
      internalValueResult.audience = this._audience;
    }
    if (this._clockSkewS !== undefined) {
      hasAnyValues = true;
      internalValueResult.clockSkewS = this._clockSkewS;
    }
    if (this._issuer !== undefined) {
      hasAnyValues = true;
      internalValueResult.issuer = this._issuer;
    }
    if (this._jwksJson !== undefined) {
      hasAnyValues = true;
      internalValueResult.jwksJson = this._jwksJson;
    }
    if (this._mode !== undefined) {
      hasAnyValues = true;
      internalValueResult.mode = this._mode;
    }
    return hasAnyValues ? internalValueResult : undefined;
  }

  public set internalValue(value: LlmProxyAuth | cdktf.IResolvable | undefined) {
    if (value === undefined) {
      this.isEmptyObject = false;
      this.resolvableValue = undefined;
      this._audience = undefined;
      this._clockSkewS = undefined;
      this._issuer = undefined;
      this._jwksJson = undefined;
      this._mode = undefined;
    }
    else if (cdktf.Tokenization.isResolvable(value)) {
      this.isEmptyObject = false;
      this.resolvableValue = value;
    }
    else {
      this.isEmptyObject = Object.keys(value).length === 0;
      this.resolvableValue = undefined;
      this._audience = value.audience;
      this._clockSkewS = value.clockSkewS;
      this._issuer = value.issuer;
      this._jwksJson = value.jwksJson;
      this._mode = value.mode;
    }
  }

  // audience - computed: false, optional: true, required: false
  private _audience?: string; 
  public get audience() {
    return this.getStringAttribute('audience');
  }
  public set audience(value: string) {
    this._audience = value;
  }
  public resetAudience() {
    this._audience = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get audienceInput() {
    return this._audience;
  }

  // clock_skew_s - computed: true, optional: true, required: false
  private _clockSkewS?: number; 
  public get clockSkewS() {
    return this.getNumberAttribute('clock_skew_s');
  }
  public set clockSkewS(value: number) {
    this._clockSkewS = value;
  }
  public resetClockSkewS() {
    this._clockSkewS = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get clockSkewSInput() {
    return this._clockSkewS;
  }

  // issuer - computed: false, optional: true, required: false
  private _issuer?: string; 
  public get issuer() {
    return this.getStringAttribute('issuer');
  }
  public set issuer(value: string) {
    this._issuer = value;
  }
  public resetIssuer() {
    this._issuer = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get issuerInput() {
    return this._issuer;
  }

  // jwks_json - computed: false, optional: true, required: false
  private _jwksJson?: string; 
  public get jwksJson() {
    return this.getStringAttribute('jwks_json');
  }
  public set jwksJson(value: string) {
    this._jwksJson = value;
  }
  public resetJwksJson() {
    this._jwksJson = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get jwksJsonInput() {
    return this._jwksJson;
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
}
export interface LlmProxyBudget {
  /**
  * Cap in USD for the window; 0 disables the cap (usage is tracked, nothing is blocked).
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#cap_usd LlmProxy#cap_usd}
  */
  readonly capUsd: number;
  /**
  * true: requests are refused with 402 once the window spend reaches the cap; false: they pass and are flagged. Default false.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#hard_block LlmProxy#hard_block}
  */
  readonly hardBlock?: boolean | cdktf.IResolvable;
  /**
  * Spend window: daily (UTC midnight), weekly (UTC Monday), monthly (UTC day 1), fixed (only reset by the reset endpoint).
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#period LlmProxy#period}
  */
  readonly period: string;
}

export function llmProxyBudgetToTerraform(struct?: LlmProxyBudget | cdktf.IResolvable): any {
  if (!cdktf.canInspect(struct) || cdktf.Tokenization.isResolvable(struct)) { return struct; }
  if (cdktf.isComplexElement(struct)) {
    throw new Error("A complex element was used as configuration, this is not supported: https://cdk.tf/complex-object-as-configuration");
  }
  return {
    cap_usd: cdktf.numberToTerraform(struct!.capUsd),
    hard_block: cdktf.booleanToTerraform(struct!.hardBlock),
    period: cdktf.stringToTerraform(struct!.period),
  }
}


export function llmProxyBudgetToHclTerraform(struct?: LlmProxyBudget | cdktf.IResolvable): any {
  if (!cdktf.canInspect(struct) || cdktf.Tokenization.isResolvable(struct)) { return struct; }
  if (cdktf.isComplexElement(struct)) {
    throw new Error("A complex element was used as configuration, this is not supported: https://cdk.tf/complex-object-as-configuration");
  }
  const attrs = {
    cap_usd: {
      value: cdktf.numberToHclTerraform(struct!.capUsd),
      isBlock: false,
      type: "simple",
      storageClassType: "number",
    },
    hard_block: {
      value: cdktf.booleanToHclTerraform(struct!.hardBlock),
      isBlock: false,
      type: "simple",
      storageClassType: "boolean",
    },
    period: {
      value: cdktf.stringToHclTerraform(struct!.period),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
  };

  // remove undefined attributes
  return Object.fromEntries(Object.entries(attrs).filter(([_, value]) => value !== undefined && value.value !== undefined));
}

export class LlmProxyBudgetOutputReference extends cdktf.ComplexObject {
  private isEmptyObject = false;
  private resolvableValue?: cdktf.IResolvable;

  /**
  * @param terraformResource The parent resource
  * @param terraformAttribute The attribute on the parent resource this class is referencing
  */
  public constructor(terraformResource: cdktf.IInterpolatingParent, terraformAttribute: string) {
    super(terraformResource, terraformAttribute, false);
  }

  public get internalValue(): LlmProxyBudget | cdktf.IResolvable | undefined {
    if (this.resolvableValue) {
      return this.resolvableValue;
    }
    let hasAnyValues = this.isEmptyObject;
    const internalValueResult: any = {};
    if (this._capUsd !== undefined) {
      hasAnyValues = true;
      internalValueResult.capUsd = this._capUsd;
    }
    if (this._hardBlock !== undefined) {
      hasAnyValues = true;
      internalValueResult.hardBlock = this._hardBlock;
    }
    if (this._period !== undefined) {
      hasAnyValues = true;
      internalValueResult.period = this._period;
    }
    return hasAnyValues ? internalValueResult : undefined;
  }

  public set internalValue(value: LlmProxyBudget | cdktf.IResolvable | undefined) {
    if (value === undefined) {
      this.isEmptyObject = false;
      this.resolvableValue = undefined;
      this._capUsd = undefined;
      this._hardBlock = undefined;
      this._period = undefined;
    }
    else if (cdktf.Tokenization.isResolvable(value)) {
      this.isEmptyObject = false;
      this.resolvableValue = value;
    }
    else {
      this.isEmptyObject = Object.keys(value).length === 0;
      this.resolvableValue = undefined;
      this._capUsd = value.capUsd;
      this._hardBlock = value.hardBlock;
      this._period = value.period;
    }
  }

  // cap_usd - computed: false, optional: false, required: true
  private _capUsd?: number; 
  public get capUsd() {
    return this.getNumberAttribute('cap_usd');
  }
  public set capUsd(value: number) {
    this._capUsd = value;
  }
  // Temporarily expose input value. Use with caution.
  public get capUsdInput() {
    return this._capUsd;
  }

  // hard_block - computed: true, optional: true, required: false
  private _hardBlock?: boolean | cdktf.IResolvable; 
  public get hardBlock() {
    return this.getBooleanAttribute('hard_block');
  }
  public set hardBlock(value: boolean | cdktf.IResolvable) {
    this._hardBlock = value;
  }
  public resetHardBlock() {
    this._hardBlock = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get hardBlockInput() {
    return this._hardBlock;
  }

  // period - computed: false, optional: false, required: true
  private _period?: string; 
  public get period() {
    return this.getStringAttribute('period');
  }
  public set period(value: string) {
    this._period = value;
  }
  // Temporarily expose input value. Use with caution.
  public get periodInput() {
    return this._period;
  }
}

/**
* Represents a {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy tollgate_llm_proxy}
*/
export class LlmProxy extends cdktf.TerraformResource {

  // =================
  // STATIC PROPERTIES
  // =================
  public static readonly tfResourceType = "tollgate_llm_proxy";

  // ==============
  // STATIC Methods
  // ==============
  /**
  * Generates CDKTF code for importing a LlmProxy resource upon running "cdktf plan <stack-name>"
  * @param scope The scope in which to define this construct
  * @param importToId The construct id used in the generated config for the LlmProxy to import
  * @param importFromId The id of the existing LlmProxy that should be imported. Refer to the {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy#import import section} in the documentation of this resource for the id to use
  * @param provider? Optional instance of the provider where the LlmProxy to import is found
  */
  public static generateConfigForImport(scope: Construct, importToId: string, importFromId: string, provider?: cdktf.TerraformProvider) {
        return new cdktf.ImportableResource(scope, importToId, { terraformResourceType: "tollgate_llm_proxy", importId: importFromId, provider });
      }

  // ===========
  // INITIALIZER
  // ===========

  /**
  * Create a new {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_proxy tollgate_llm_proxy} Resource
  *
  * @param scope The scope in which to define this construct
  * @param id The scoped construct ID. Must be unique amongst siblings in the same scope
  * @param options LlmProxyConfig
  */
  public constructor(scope: Construct, id: string, config: LlmProxyConfig) {
    super(scope, id, {
      terraformResourceType: 'tollgate_llm_proxy',
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
    this._allowedModels = config.allowedModels;
    this._auth.internalValue = config.auth;
    this._budget.internalValue = config.budget;
    this._defaultModel = config.defaultModel;
    this._llmProvider = config.llmProvider;
    this._logConversations = config.logConversations;
    this._name = config.name;
    this._providerKey = config.providerKey;
    this._providerKeyWo = config.providerKeyWo;
    this._providerKeyWoVersion = config.providerKeyWoVersion;
  }

  // ==========
  // ATTRIBUTES
  // ==========

  // allowed_models - computed: true, optional: true, required: false
  private _allowedModels?: string[]; 
  public get allowedModels() {
    return this.getListAttribute('allowed_models');
  }
  public set allowedModels(value: string[]) {
    this._allowedModels = value;
  }
  public resetAllowedModels() {
    this._allowedModels = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get allowedModelsInput() {
    return this._allowedModels;
  }

  // auth - computed: false, optional: true, required: false
  private _auth = new LlmProxyAuthOutputReference(this, "auth");
  public get auth() {
    return this._auth;
  }
  public putAuth(value: LlmProxyAuth) {
    this._auth.internalValue = value;
  }
  public resetAuth() {
    this._auth.internalValue = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get authInput() {
    return this._auth.internalValue;
  }

  // budget - computed: false, optional: true, required: false
  private _budget = new LlmProxyBudgetOutputReference(this, "budget");
  public get budget() {
    return this._budget;
  }
  public putBudget(value: LlmProxyBudget) {
    this._budget.internalValue = value;
  }
  public resetBudget() {
    this._budget.internalValue = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get budgetInput() {
    return this._budget.internalValue;
  }

  // default_model - computed: false, optional: true, required: false
  private _defaultModel?: string; 
  public get defaultModel() {
    return this.getStringAttribute('default_model');
  }
  public set defaultModel(value: string) {
    this._defaultModel = value;
  }
  public resetDefaultModel() {
    this._defaultModel = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get defaultModelInput() {
    return this._defaultModel;
  }

  // id - computed: true, optional: false, required: false
  public get id() {
    return this.getStringAttribute('id');
  }

  // llm_provider - computed: false, optional: false, required: true
  private _llmProvider?: string; 
  public get llmProvider() {
    return this.getStringAttribute('llm_provider');
  }
  public set llmProvider(value: string) {
    this._llmProvider = value;
  }
  // Temporarily expose input value. Use with caution.
  public get llmProviderInput() {
    return this._llmProvider;
  }

  // log_conversations - computed: true, optional: true, required: false
  private _logConversations?: boolean | cdktf.IResolvable; 
  public get logConversations() {
    return this.getBooleanAttribute('log_conversations');
  }
  public set logConversations(value: boolean | cdktf.IResolvable) {
    this._logConversations = value;
  }
  public resetLogConversations() {
    this._logConversations = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get logConversationsInput() {
    return this._logConversations;
  }

  // name - computed: false, optional: false, required: true
  private _name?: string; 
  public get name() {
    return this.getStringAttribute('name');
  }
  public set name(value: string) {
    this._name = value;
  }
  // Temporarily expose input value. Use with caution.
  public get nameInput() {
    return this._name;
  }

  // provider_key - computed: false, optional: true, required: false
  private _providerKey?: string; 
  public get providerKey() {
    return this.getStringAttribute('provider_key');
  }
  public set providerKey(value: string) {
    this._providerKey = value;
  }
  public resetProviderKey() {
    this._providerKey = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get providerKeyInput() {
    return this._providerKey;
  }

  // provider_key_wo - computed: false, optional: true, required: false
  private _providerKeyWo?: string; 
  public get providerKeyWo() {
    return this.getStringAttribute('provider_key_wo');
  }
  public set providerKeyWo(value: string) {
    this._providerKeyWo = value;
  }
  public resetProviderKeyWo() {
    this._providerKeyWo = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get providerKeyWoInput() {
    return this._providerKeyWo;
  }

  // provider_key_wo_version - computed: false, optional: true, required: false
  private _providerKeyWoVersion?: number; 
  public get providerKeyWoVersion() {
    return this.getNumberAttribute('provider_key_wo_version');
  }
  public set providerKeyWoVersion(value: number) {
    this._providerKeyWoVersion = value;
  }
  public resetProviderKeyWoVersion() {
    this._providerKeyWoVersion = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get providerKeyWoVersionInput() {
    return this._providerKeyWoVersion;
  }

  // proxy_host - computed: true, optional: false, required: false
  public get proxyHost() {
    return this.getStringAttribute('proxy_host');
  }

  // =========
  // SYNTHESIS
  // =========

  protected synthesizeAttributes(): { [name: string]: any } {
    return {
      allowed_models: cdktf.listMapper(cdktf.stringToTerraform, false)(this._allowedModels),
      auth: llmProxyAuthToTerraform(this._auth.internalValue),
      budget: llmProxyBudgetToTerraform(this._budget.internalValue),
      default_model: cdktf.stringToTerraform(this._defaultModel),
      llm_provider: cdktf.stringToTerraform(this._llmProvider),
      log_conversations: cdktf.booleanToTerraform(this._logConversations),
      name: cdktf.stringToTerraform(this._name),
      provider_key: cdktf.stringToTerraform(this._providerKey),
      provider_key_wo: cdktf.stringToTerraform(this._providerKeyWo),
      provider_key_wo_version: cdktf.numberToTerraform(this._providerKeyWoVersion),
    };
  }

  protected synthesizeHclAttributes(): { [name: string]: any } {
    const attrs = {
      allowed_models: {
        value: cdktf.listMapperHcl(cdktf.stringToHclTerraform, false)(this._allowedModels),
        isBlock: false,
        type: "list",
        storageClassType: "stringList",
      },
      auth: {
        value: llmProxyAuthToHclTerraform(this._auth.internalValue),
        isBlock: true,
        type: "struct",
        storageClassType: "LlmProxyAuth",
      },
      budget: {
        value: llmProxyBudgetToHclTerraform(this._budget.internalValue),
        isBlock: true,
        type: "struct",
        storageClassType: "LlmProxyBudget",
      },
      default_model: {
        value: cdktf.stringToHclTerraform(this._defaultModel),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      llm_provider: {
        value: cdktf.stringToHclTerraform(this._llmProvider),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      log_conversations: {
        value: cdktf.booleanToHclTerraform(this._logConversations),
        isBlock: false,
        type: "simple",
        storageClassType: "boolean",
      },
      name: {
        value: cdktf.stringToHclTerraform(this._name),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      provider_key: {
        value: cdktf.stringToHclTerraform(this._providerKey),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      provider_key_wo: {
        value: cdktf.stringToHclTerraform(this._providerKeyWo),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      provider_key_wo_version: {
        value: cdktf.numberToHclTerraform(this._providerKeyWoVersion),
        isBlock: false,
        type: "simple",
        storageClassType: "number",
      },
    };

    // remove undefined attributes
    return Object.fromEntries(Object.entries(attrs).filter(([_, value]) => value !== undefined && value.value !== undefined ))
  }
}
