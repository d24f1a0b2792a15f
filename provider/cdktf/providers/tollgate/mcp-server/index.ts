// https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server
// generated from terraform resource schema

import { Construct } from 'constructs';
import * as cdktf from 'cdktf';

// Configuration

export interface McpServerConfig extends cdktf.TerraformMetaArguments {
  /**
  * Inbound auth, from clients to the proxy; null means client API keys (svc_api_key).
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server#auth McpServer#auth}
  */
  readonly auth?: McpServerAuth;
  /**
  * Write-only upstream bearer token; required if and only if authType is bearer. Encrypted at rest, never returned. Stored in the Terraform state (sensitive); use auth_token_wo to keep it out.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server#auth_token McpServer#auth_token}
  */
  readonly authToken?: string;
  /**
  * Write-only form of auth_token (Terraform 1.11+): sent to the server, never stored in state. Change auth_token_wo_version to send a new value.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server#auth_token_wo McpServer#auth_token_wo}
  */
  readonly authTokenWo?: string;
  /**
  * Any number; changing it sends auth_token_wo again.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server#auth_token_wo_version McpServer#auth_token_wo_version}
  */
  readonly authTokenWoVersion?: number;
  /**
  * Upstream auth, from Tollgate to the MCP server: none, or a bearer token (authToken). Default none.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server#auth_type McpServer#auth_type}
  */
  readonly authType?: string;
  /**
  * Run tool discovery after create and after a URL change, so that tools lists the upstream catalog.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server#discover_tools McpServer#discover_tools}
  */
  readonly discoverTools?: boolean | cdktf.IResolvable;
  /**
  * Display name of the MCP server.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server#name McpServer#name}
  */
  readonly name: string;
  /**
  * What the gateway does when an upstream tool definition differs from the approved catalog: off (compare nothing), warn (pass, record a tool_changed event), hide (drop changed and new tools from tools/list and refuse calls to them) or block (refuse every MCP request of the proxy until the owner approves the change). Default off.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server#tool_pinning McpServer#tool_pinning}
  */
  readonly toolPinning?: string;
  /**
  * Upstream MCP endpoint (Streamable HTTP). Must be https and resolve only to public addresses.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server#url McpServer#url}
  */
  readonly url: string;
}
export interface McpServerAuth {
  /**
  * A value the aud claim of every token must hold; required in jwt mode.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server#audience McpServer#audience}
  */
  readonly audience?: string;
  /**
  * Clock-skew tolerance in seconds. Default 30.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server#clock_skew_s McpServer#clock_skew_s}
  */
  readonly clockSkewS?: number;
  /**
  * The iss claim every token must carry; required in jwt mode.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server#issuer McpServer#issuer}
  */
  readonly issuer?: string;
  /**
  * A JWKS document, JSON-encoded as a string (jwt mode). Use jsonencode().
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server#jwks_json McpServer#jwks_json}
  */
  readonly jwksJson?: string;
  /**
  * svc_api_key: client keys minted by Tollgate; jwt: JWTs checked against jwksJson. Default svc_api_key.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server#mode McpServer#mode}
  */
  readonly mode?: string;
}

export function mcpServerAuthToTerraform(struct?: McpServerAuth | cdktf.IResolvable): any {
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


export function mcpServerAuthToHclTerraform(struct?: McpServerAuth | cdktf.IResolvable): any {
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

export class McpServerAuthOutputReference extends cdktf.ComplexObject {
  private isEmptyObject = false;
  private resolvableValue?: cdktf.IResolvable;

  /**
  * @param terraformResource The parent resource
  * @param terraformAttribute The attribute on the parent resource this class is referencing
  */
  public constructor(terraformResource: cdktf.IInterpolatingParent, terraformAttribute: string) {
    super(terraformResource, terraformAttribute, false);
  }

  public get internalValue(): McpServerAuth | cdktf.IResolvable | undefined {
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

  public set internalValue(value: McpServerAuth | cdktf.IResolvable | undefined) {
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

/**
* Represents a {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server tollgate_mcp_server}
*/
export class McpServer extends cdktf.TerraformResource {

  // =================
  // STATIC PROPERTIES
  // =================
  public static readonly tfResourceType = "tollgate_mcp_server";

  // ==============
  // STATIC Methods
  // ==============
  /**
  * Generates CDKTF code for importing a McpServer resource upon running "cdktf plan <stack-name>"
  * @param scope The scope in which to define this construct
  * @param importToId The construct id used in the generated config for the McpServer to import
  * @param importFromId The id of the existing McpServer that should be imported. Refer to the {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server#import import section} in the documentation of this resource for the id to use
  * @param provider? Optional instance of the provider where the McpServer to import is found
  */
  public static generateConfigForImport(scope: Construct, importToId: string, importFromId: string, provider?: cdktf.TerraformProvider) {
        return new cdktf.ImportableResource(scope, importToId, { terraformResourceType: "tollgate_mcp_server", importId: importFromId, provider });
      }

  // ===========
  // INITIALIZER
  // ===========

  /**
  * Create a new {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_server tollgate_mcp_server} Resource
  *
  * @param scope The scope in which to define this construct
  * @param id The scoped construct ID. Must be unique amongst siblings in the same scope
  * @param options McpServerConfig
  */
  public constructor(scope: Construct, id: string, config: McpServerConfig) {
    super(scope, id, {
      terraformResourceType: 'tollgate_mcp_server',
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
    this._auth.internalValue = config.auth;
    this._authToken = config.authToken;
    this._authTokenWo = config.authTokenWo;
    this._authTokenWoVersion = config.authTokenWoVersion;
    this._authType = config.authType;
    this._discoverTools = config.discoverTools;
    this._name = config.name;
    this._toolPinning = config.toolPinning;
    this._url = config.url;
  }

  // ==========
  // ATTRIBUTES
  // ==========

  // auth - computed: false, optional: true, required: false
  private _auth = new McpServerAuthOutputReference(this, "auth");
  public get auth() {
    return this._auth;
  }
  public putAuth(value: McpServerAuth) {
    this._auth.internalValue = value;
  }
  public resetAuth() {
    this._auth.internalValue = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get authInput() {
    return this._auth.internalValue;
  }

  // auth_token - computed: false, optional: true, required: false
  private _authToken?: string; 
  public get authToken() {
    return this.getStringAttribute('auth_token');
  }
  public set authToken(value: string) {
    this._authToken = value;
  }
  public resetAuthToken() {
    this._authToken = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get authTokenInput() {
    return this._authToken;
  }

  // auth_token_wo - computed: false, optional: true, required: false
  private _authTokenWo?: string; 
  public get authTokenWo() {
    return this.getStringAttribute('auth_token_wo');
  }
  public set authTokenWo(value: string) {
    this._authTokenWo = value;
  }
  public resetAuthTokenWo() {
    this._authTokenWo = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get authTokenWoInput() {
    return this._authTokenWo;
  }

  // auth_token_wo_version - computed: false, optional: true, required: false
  private _authTokenWoVersion?: number; 
  public get authTokenWoVersion() {
    return this.getNumberAttribute('auth_token_wo_version');
  }
  public set authTokenWoVersion(value: number) {
    this._authTokenWoVersion = value;
  }
  public resetAuthTokenWoVersion() {
    this._authTokenWoVersion = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get authTokenWoVersionInput() {
    return this._authTokenWoVersion;
  }

  // auth_type - computed: true, optional: true, required: false
  private _authType?: string; 
  public get authType() {
    return this.getStringAttribute('auth_type');
  }
  public set authType(value: string) {
    this._authType = value;
  }
  public resetAuthType() {
    this._authType = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get authTypeInput() {
    return this._authType;
  }

  // discover_tools - computed: false, optional: true, required: false
  private _discoverTools?: boolean | cdktf.IResolvable; 
  public get discoverTools() {
    return this.getBooleanAttribute('discover_tools');
  }
  public set discoverTools(value: boolean | cdktf.IResolvable) {
    this._discoverTools = value;
  }
  public resetDiscoverTools() {
    this._discoverTools = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get discoverToolsInput() {
    return this._discoverTools;
  }

  // id - computed: true, optional: false, required: false
  public get id() {
    return this.getStringAttribute('id');
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

  // proxy_host - computed: true, optional: false, required: false
  public get proxyHost() {
    return this.getStringAttribute('proxy_host');
  }

  // tool_pinning - computed: true, optional: true, required: false
  private _toolPinning?: string; 
  public get toolPinning() {
    return this.getStringAttribute('tool_pinning');
  }
  public set toolPinning(value: string) {
    this._toolPinning = value;
  }
  public resetToolPinning() {
    this._toolPinning = undefined;
  }
  // Temporarily expose input value. Use with caution.
  public get toolPinningInput() {
    return this._toolPinning;
  }

  // tools - computed: true, optional: false, required: false
  public get tools() {
    return this.getListAttribute('tools');
  }

  // url - computed: false, optional: false, required: true
  private _url?: string; 
  public get url() {
    return this.getStringAttribute('url');
  }
  public set url(value: string) {
    this._url = value;
  }
  // Temporarily expose input value. Use with caution.
  public get urlInput() {
    return this._url;
  }

  // =========
  // SYNTHESIS
  // =========

  protected synthesizeAttributes(): { [name: string]: any } {
    return {
      auth: mcpServerAuthToTerraform(this._auth.internalValue),
      auth_token: cdktf.stringToTerraform(this._authToken),
      auth_token_wo: cdktf.stringToTerraform(this._authTokenWo),
      auth_token_wo_version: cdktf.numberToTerraform(this._authTokenWoVersion),
      auth_type: cdktf.stringToTerraform(this._authType),
      discover_tools: cdktf.booleanToTerraform(this._discoverTools),
      name: cdktf.stringToTerraform(this._name),
      tool_pinning: cdktf.stringToTerraform(this._toolPinning),
      url: cdktf.stringToTerraform(this._url),
    };
  }

  protected synthesizeHclAttributes(): { [name: string]: any } {
    const attrs = {
      auth: {
        value: mcpServerAuthToHclTerraform(this._auth.internalValue),
        isBlock: true,
        type: "struct",
        storageClassType: "McpServerAuth",
      },
      auth_token: {
        value: cdktf.stringToHclTerraform(this._authToken),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      auth_token_wo: {
        value: cdktf.stringToHclTerraform(this._authTokenWo),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      auth_token_wo_version: {
        value: cdktf.numberToHclTerraform(this._authTokenWoVersion),
        isBlock: false,
        type: "simple",
        storageClassType: "number",
      },
      auth_type: {
        value: cdktf.stringToHclTerraform(this._authType),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      discover_tools: {
        value: cdktf.booleanToHclTerraform(this._discoverTools),
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
      tool_pinning: {
        value: cdktf.stringToHclTerraform(this._toolPinning),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      url: {
        value: cdktf.stringToHclTerraform(this._url),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
    };

    // remove undefined attributes
    return Object.fromEntries(Object.entries(attrs).filter(([_, value]) => value !== undefined && value.value !== undefined ))
  }
}
