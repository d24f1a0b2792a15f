// https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_key_budget
// generated from terraform resource schema

import { Construct } from 'constructs';
import * as cdktf from 'cdktf';

// Configuration

export interface LlmKeyBudgetConfig extends cdktf.TerraformMetaArguments {
  /**
  * The client API key (it must be granted models on the proxy).
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_key_budget#api_key_id LlmKeyBudget#api_key_id}
  */
  readonly apiKeyId: string;
  /**
  * Cap in USD for the window; 0 disables the cap (usage is tracked, nothing is blocked).
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_key_budget#cap_usd LlmKeyBudget#cap_usd}
  */
  readonly capUsd: number;
  /**
  * true: requests are refused with 402 once the window spend reaches the cap; false: they pass and are flagged. Default false.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_key_budget#hard_block LlmKeyBudget#hard_block}
  */
  readonly hardBlock?: boolean | cdktf.IResolvable;
  /**
  * The LLM proxy.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_key_budget#llm_proxy_id LlmKeyBudget#llm_proxy_id}
  */
  readonly llmProxyId: string;
  /**
  * Spend window: daily (UTC midnight), weekly (UTC Monday), monthly (UTC day 1), fixed (only reset by the reset endpoint).
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_key_budget#period LlmKeyBudget#period}
  */
  readonly period: string;
}

/**
* Represents a {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_key_budget tollgate_llm_key_budget}
*/
export class LlmKeyBudget extends cdktf.TerraformResource {

  // =================
  // STATIC PROPERTIES
  // =================
  public static readonly tfResourceType = "tollgate_llm_key_budget";

  // ==============
  // STATIC Methods
  // ==============
  /**
  * Generates CDKTF code for importing a LlmKeyBudget resource upon running "cdktf plan <stack-name>"
  * @param scope The scope in which to define this construct
  * @param importToId The construct id used in the generated config for the LlmKeyBudget to import
  * @param importFromId The id of the existing LlmKeyBudget that should be imported. Refer to the {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_key_budget#import import section} in the documentation of this resource for the id to use
  * @param provider? Optional instance of the provider where the LlmKeyBudget to import is found
  */
  public static generateConfigForImport(scope: Construct, importToId: string, importFromId: string, provider?: cdktf.TerraformProvider) {
        return new cdktf.ImportableResource(scope, importToId, { terraformResourceType: "tollgate_llm_key_budget", importId: importFromId, provider });
      }

  // ===========
  // INITIALIZER
  // ===========

  /**
  * Create a new {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/llm_key_budget tollgate_llm_key_budget} Resource
  *
  * @param scope The scope in which to define this construct
  * @param id The scoped construct ID. Must be unique amongst siblings in the same scope
  * @param options LlmKeyBudgetConfig
  */
  public constructor(scope: Construct, id: string, config: LlmKeyBudgetConfig) {
    super(scope, id, {
      terraformResourceType: 'tollgate_llm_key_budget',
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
    this._apiKeyId = config.apiKeyId;
    this._capUsd = config.capUsd;
    this._hardBlock = config.hardBlock;
    this._llmProxyId = config.llmProxyId;
    this._period = config.period;
  }

  // ==========
  // ATTRIBUTES
  // ==========

  // api_key_id - computed: false, optional: false, required: true
  private _apiKeyId?: string; 
  public get apiKeyId() {
    return this.getStringAttribute('api_key_id');
  }
  public set apiKeyId(value: string) {
    this._apiKeyId = value;
  }
  // Temporarily expose input value. Use with caution.
  public get apiKeyIdInput() {
    return this._apiKeyId;
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

  // id - computed: true, optional: false, required: false
  public get id() {
    return this.getStringAttribute('id');
  }

  // llm_proxy_id - computed: false, optional: false, required: true
  private _llmProxyId?: string; 
  public get llmProxyId() {
    return this.getStringAttribute('llm_proxy_id');
  }
  public set llmProxyId(value: string) {
    this._llmProxyId = value;
  }
  // Temporarily expose input value. Use with caution.
  public get llmProxyIdInput() {
    return this._llmProxyId;
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

  // =========
  // SYNTHESIS
  // =========

  protected synthesizeAttributes(): { [name: string]: any } {
    return {
      api_key_id: cdktf.stringToTerraform(this._apiKeyId),
      cap_usd: cdktf.numberToTerraform(this._capUsd),
      hard_block: cdktf.booleanToTerraform(this._hardBlock),
      llm_proxy_id: cdktf.stringToTerraform(this._llmProxyId),
      period: cdktf.stringToTerraform(this._period),
    };
  }

  protected synthesizeHclAttributes(): { [name: string]: any } {
    const attrs = {
      api_key_id: {
        value: cdktf.stringToHclTerraform(this._apiKeyId),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      cap_usd: {
        value: cdktf.numberToHclTerraform(this._capUsd),
        isBlock: false,
        type: "simple",
        storageClassType: "number",
      },
      hard_block: {
        value: cdktf.booleanToHclTerraform(this._hardBlock),
        isBlock: false,
        type: "simple",
        storageClassType: "boolean",
      },
      llm_proxy_id: {
        value: cdktf.stringToHclTerraform(this._llmProxyId),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      period: {
        value: cdktf.stringToHclTerraform(this._period),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
    };

    // remove undefined attributes
    return Object.fromEntries(Object.entries(attrs).filter(([_, value]) => value !== undefined && value.value !== undefined ))
  }
}
