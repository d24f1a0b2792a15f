// https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/api_key
// generated from terraform resource schema

import { Construct } from 'constructs';
import * as cdktf from 'cdktf';

// Configuration

export interface ApiKeyConfig extends cdktf.TerraformMetaArguments {
  /**
  * Free-form tags kept as given. The namespaces svc:, private:, name:, mcp: and llm: are reserved.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/api_key#custom_tags ApiKey#custom_tags}
  */
  readonly customTags?: string[];
  /**
  * LLM grants; tags llm:<id>:model:<m> are built from them.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/api_key#llm_permissions ApiKey#llm_permissions}
  */
  readonly llmPermissions?: ApiKeyLlmPermissions[] | cdktf.IResolvable;
  /**
  * MCP grants; tags mcp:<id>:tool:<t> and mcp:<id>:resource:<r> are built from them.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/api_key#mcp_permissions ApiKey#mcp_permissions}
  */
  readonly mcpPermissions?: ApiKeyMcpPermissions[] | cdktf.IResolvable;
  /**
  * Label of the key: letters, numbers, - and _; fixed at creation. Changing it replaces the key.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/api_key#name ApiKey#name}
  */
  readonly name: string;
}
export interface ApiKeyLlmPermissions {
  /**
  * Id of one of your LLM proxies.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/api_key#id ApiKey#id}
  *
  * Please be aware that the id field is automatically added to all resources in Terraform providers using a Terraform provider SDK version below 2.
  * If you experience problems setting this value it might not be settable. Please take a look at the provider documentation to ensure it should be settable.
  */
  readonly id: string;
  /**
  * Model ids, or ["*"] for any model the proxy allows (its allowedModels still apply).
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/api_key#models ApiKey#models}
  */
  readonly models: string[];
}

export function apiKeyLlmPermissionsToTerraform(struct?: ApiKeyLlmPermissions | cdktf.IResolvable): any {
  if (!cdktf.canInspect(struct) || cdktf.Tokenization.isResolvable(struct)) { return struct; }
  if (cdktf.isComplexElement(struct)) {
    throw new Error("A complex element was used as configuration, this is not supported: https://cdk.tf/complex-object-as-configuration");
  }
  return {
    id: cdktf.stringToTerraform(struct!.id),
    models: cdktf.listMapper(cdktf.stringToTerraform, false)(struct!.models),
  }
}


export function apiKeyLlmPermissionsToHclTerraform(struct?: ApiKeyLlmPermissions | cdktf.IResolvable): any {
  if (!cdktf.canInspect(struct) || cdktf.Tokenization.isResolvable(struct)) { return struct; }
  if (cdktf.isComplexElement(struct)) {
    throw new Error("A complex element was used as configuration, this is not supported: https://cdk.tf/complex-object-as-configuration");
  }
  const attrs = {
    id: {
      value: cdktf.stringToHclTerraform(struct!.id),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    models: {
      value: cdktf.listMapperHcl(cdktf.stringToHclTerraform, false)(struct!.models),
      isBlock: false,
      type: "list",
      storageClassType: "stringList",
    },
  };

  // remove undefined attributes
  return Object.fromEntries(Object.entries(attrs).filter(([_, value]) => value !== undefined && value.value !== undefined));
}

export class ApiKeyLlmPermissionsOutputReference extends cdktf.ComplexObject {
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

  public get internalValue(): ApiKeyLlmPermissions | cdktf.IResolvable | undefined {
    if (this.resolvableValue) {
      return this.resolvableValue;
    }
    let hasAnyValues = this.isEmptyObject;
    const internalValueResult: any = {};
    if (this._id !== undefined) {
      hasAnyValues = true;
      internalValueResult.id = this._id;
    }
    if (this._models !== undefined) {
      hasAnyValues = true;
      internalValueResult.models = this._models;
    }
    return hasAnyValues ? internalValueResult : undefined;
  }

  public set internalValue(value: ApiKeyLlmPermissions | cdktf.IResolvable | undefined) {
    if (value === undefined) {
      this.isEmptyObject = false;
      this.resolvableValue = undefined;
      this._id = undefined;
      this._models = undefined;
    }
    else if (cdktf.Tokenization.isResolvable(value)) {
      this.isEmptyObject = false;
      this.resolvableValue = value;
    }
    else {
      this.isEmptyObject = Object.keys(value).length === 0;
      this.resolvableValue = undefined;
      this._id = value.id;
      this._models = value.models;
    }
  }

  // id - computed: true, optional: false, required: true
  private _id?: string; 
  public get id() {
    return this.getStringAttribute('id');
  }
  public set id(value: string) {
    this._id = value;
  }
  // Temporarily expose input value. Use with caution.
  public get idInput() {
    return this._id;
  }

  // models - computed: true, optional: false, required: true
  private _models?: string[]; 
  public get models() {
    return this.getListAttribute('models');
  }
  public set models(value: string[]) {
    this._models = value;
  }
  // Temporarily expose input value. Use with caution.
  public get modelsInput() {
    return this._models;
  }
}

export class ApiKeyLlmPermissionsList extends cdktf.ComplexList {
  public internalValue? : ApiKeyLlmPermissions[] | cdktf.IResolvable

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
  public get(index: number): ApiKeyLlmPermissionsOutputReference {
    return new ApiKeyLlmPermissionsOutputReference(this.terraformResource, this.terraformAttribute, index, this.wrapsSet);
  }
}
export interface ApiKeyMcpPermissions {
  /**
  * Id of one of your MCP servers.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/api_key#id ApiKey#id}
  *
  * Please be aware that the id field is automatically added to all resources in Terraform providers using a Terraform provider SDK version below 2.
  * If you experience problems setting this value it might not be settable. Please take a look at the provider documentation to ensure it should be settable.
  */
  readonly id: string;
  /**
  * Ids of the server's synthetic resources (from /api/mcp/:id/resources) or of its mcp_resource rules, or ["*"] for every resource, upstream ones included.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/api_key#resources ApiKey#resources}
  */
  readonly resources?: string[];
  /**
  * Tool names from the server's discovered catalog, or ["*"] for every tool.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/api_key#tools ApiKey#tools}
  */
  readonly tools?: string[];
}

export function apiKeyMcpPermissionsToTerraform(struct?: ApiKeyMcpPermissions | cdktf.IResolvable): any {
  if (!cdktf.canInspect(struct) || cdktf.Tokenization.isResolvable(struct)) { return struct; }
  if (cdktf.isComplexElement(struct)) {
    throw new Error("A complex element was used as configuration, this is not supported: https://cdk.tf/complex-object-as-configuration");
  }
  return {
    id: cdktf.stringToTerraform(struct!.id),
    resources: cdktf.listMapper(cdktf.stringToTerraform, false)(struct!.resources),
    tools: cdktf.listMapper(cdktf.stringToTerraform, false)(struct!.tools),
  }
}


export function apiKeyMcpPermissionsToHclTerraform(struct?: ApiKeyMcpPermissions | cdktf.IResolvable): any {
  if (!cdktf.canInspect(struct) || cdktf.Tokenization.isResolvable(struct)) { return struct; }
  if (cdktf.isComplexElement(struct)) {
    throw new Error("A complex element was used as configuration, this is not supported: https://cdk.tf/complex-object-as-configuration");
  }
  const attrs = {
    id: {
      value: cdktf.stringToHclTerraform(struct!.id),
      isBlock: false,
      type: "simple",
      storageClassType: "string",
    },
    resources: {
      value: cdktf.listMapperHcl(cdktf.stringToHclTerraform, false)(struct!.resources),
      isBlock: false,
      type: "list",
      storageClassType: "stringList",
    },
    tools: {
      value: cdktf.listMapperHcl(cdktf.stringToHclTerraform, false)(struct!.tools),
      isBlock: false,
      type: "list",
      storageClassType: "stringList",
    },
  };

  // remove undefined attributes
  return Object.fromEntries(Object.entries(attrs).filter(([_, value]) => value !== undefined && value.value !== undefined));
}

export class ApiKeyMcpPermissionsOutputReference extends cdktf.ComplexObject {
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

  public get internalValue(): ApiKeyMcpPermissions | cdktf.IResolvable | undefined {
    if (this.resolvableValue) {
      return this.resolvableValue;
    }
    let hasAnyValues = this.isEmptyObject;
    const internalValueResult: any = {};
    if (this._id !== undefined) {
      hasAnyValues = true;
      internalValueResult.id = this._id;
    }
    if (this._resources !== undefined) {
      hasAnyValues = true;
      internalValueResult.resources = this._resources;
    }
    if (this._tools !== undefined) {
      hasAnyValues = true;
      internalValueResult.tools = this._tools;
    }
    return hasAnyValues ? internalValueResult : undefined;
  }

  public set internalValue(value: ApiKeyMcpPermissions | cdktf.IResolvable | undefined) {
    if (value === undefined) {
      this.isEmptyObject = false;
      this.resolvableValue = undefined;
      this._id = undefined;
      this._resources = undefined;
      this._tools = undefined;
    }
    else if (cdktf.Tokenization.isResolvable(value)) {
      this.isEmptyObject = false;
      this.resolvableValue = value;
    }
    else {
      this.isEmptyObject = Object.keys(value).length === 0;
      this.resolvableValue = undefined;
      this._id = value.id;
      this._resources = value.resources;
      this._tools = value.tools;
    }
  }

  // id - computed: true, optional: false, required: true
  private _id?: string; 
  public get id() {
    return this.getStringAttribute('id');
  }
  public set id(value: string) {
    this._id = value;
  }
  // Temporarily expose input value. Use with caution.
  public get idInput() {
    return this._id;
  }

  // resources - computed: true, optional: true, required: false
  private _resources?: string[]; 
  public get resources() {
    return this.getListAttribute('resources');
  }
  public set resources(value: string[]) {
    this._resources = value;
  }
  public resetResources() {
    this._resources = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get resourcesInput() {
    return this._resources;
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
}

export class ApiKeyMcpPermissionsList extends cdktf.ComplexList {
  public internalValue? : ApiKeyMcpPermissions[] | cdktf.IResolvable

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
  public get(index: number): ApiKeyMcpPermissionsOutputReference {
    return new ApiKeyMcpPermissionsOutputReference(this.terraformResource, this.terraformAttribute, index, this.wrapsSet);
  }
}

/**
* Represents a {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/api_key tollgate_api_key}
*/
export class ApiKey extends cdktf.TerraformResource {

  // =================
  // STATIC PROPERTIES
  // =================
  public static readonly tfResourceType = "tollgate_api_key";

  // ==============
  // STATIC Methods
  // ==============
  /**
  * Generates CDKTF code for importing a ApiKey resource upon running "cdktf plan <stack-name>"
  * @param scope The scope in which to define this construct
  * @param importToId The construct id used in the generated config for the ApiKey to import
  * @param importFromId The id of the existing ApiKey that should be imported. Refer to the {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/api_key#import import section} in the documentation of this resource for the id to use
  * @param provider? Optional instance of the provider where the ApiKey to import is found
  */
  public static generateConfigForImport(scope: Construct, importToId: string, importFromId: string, provider?: cdktf.TerraformProvider) {
        return new cdktf.ImportableResource(scope, importToId, { terraformResourceType: "tollgate_api_key", importId: importFromId, provider });
      }

  // ===========
  // INITIALIZER
  // ===========

  /**
  * Create a new {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/api_key tollgate_api_key} Resource
  *
  * @param scope The scope in which to define this construct
  * @param id The scoped construct ID. Must be unique amongst siblings in the same scope
  * @param options ApiKeyConfig
  */
  public constructor(scope: Construct, id: string, config: ApiKeyConfig) {
    super(scope, id, {
      terraformResourceType: 'tollgate_api_key',
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
    this._customTags = config.customTags;
    this._llmPermissions.internalValue = config.llmPermissions;
    this._mcpPermissions.internalValue = config.mcpPermissions;
    this._name = config.name;
  }

  // ==========
  // ATTRIBUTES
  // ==========

  // custom_tags - computed: true, optional: true, required: false
  private _customTags?: string[]; 
  public get customTags() {
    return this.getListAttribute('custom_tags');
  }
  public set customTags(value: string[]) {
    this._customTags = value;
  }
  public resetCustomTags() {
    this._customTags = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get customTagsInput() {
    return this._customTags;
  }

  // id - computed: true, optional: false, required: false
  public get id() {
    return this.getStringAttribute('id');
  }

  // key - computed: true, optional: false, required: false
  public get key() {
    return this.getStringAttribute('key');
  }

  // llm_permissions - computed: true, optional: true, required: false
  private _llmPermissions = new ApiKeyLlmPermissionsList(this, "llm_permissions", false);
  public get llmPermissions() {
    return this._llmPermissions;
  }
  public putLlmPermissions(value: ApiKeyLlmPermissions[] | cdktf.IResolvable) {
    this._llmPermissions.internalValue = value;
  }
  public resetLlmPermissions() {
    this._llmPermissions.internalValue = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get llmPermissionsInput() {
    return this._llmPermissions.internalValue;
  }

  // masked_key - computed: true, optional: false, required: false
  public get maskedKey() {
    return this.getStringAttribute('masked_key');
  }

  // mcp_permissions - computed: true, optional: true, required: false
  private _mcpPermissions = new ApiKeyMcpPermissionsList(this, "mcp_permissions", false);
  public get mcpPermissions() {
    return this._mcpPermissions;
  }
  public putMcpPermissions(value: ApiKeyMcpPermissions[] | cdktf.IResolvable) {
    this._mcpPermissions.internalValue = value;
  }
  public resetMcpPermissions() {
    this._mcpPermissions.internalValue = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get mcpPermissionsInput() {
    return this._mcpPermissions.internalValue;
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

  // =========
  // SYNTHESIS
  // =========

  protected synthesizeAttributes(): { [name: string]: any } {
    return {
      custom_tags: cdktf.listMapper(cdktf.stringToTerraform, false)(this._customTags),
      llm_permissions: cdktf.listMapper(apiKeyLlmPermissionsToTerraform, false)(this._llmPermissions.internalValue),
      mcp_permissions: cdktf.listMapper(apiKeyMcpPermissionsToTerraform, false)(this._mcpPermissions.internalValue),
      name: cdktf.stringToTerraform(this._name),
    };
  }

  protected synthesizeHclAttributes(): { [name: string]: any } {
    const attrs = {
      custom_tags: {
        value: cdktf.listMapperHcl(cdktf.stringToHclTerraform, false)(this._customTags),
        isBlock: false,
        type: "list",
        storageClassType: "stringList",
      },
      llm_permissions: {
        value: cdktf.listMapperHcl(apiKeyLlmPermissionsToHclTerraform, false)(this._llmPermissions.internalValue),
        isBlock: true,
        type: "list",
        storageClassType: "ApiKeyLlmPermissionsList",
      },
      mcp_permissions: {
        value: cdktf.listMapperHcl(apiKeyMcpPermissionsToHclTerraform, false)(this._mcpPermissions.internalValue),
        isBlock: true,
        type: "list",
        storageClassType: "ApiKeyMcpPermissionsList",
      },
      name: {
        value: cdktf.stringToHclTerraform(this._name),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
    };

    // remove undefined attributes
    return Object.fromEntries(Object.entries(attrs).filter(([_, value]) => value !== undefined && value.value !== undefined ))
  }
}
