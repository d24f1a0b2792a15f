// https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_resource
// generated from terraform resource schema

import { Construct } from 'constructs';
import * as cdktf from 'cdktf';

// Configuration

export interface McpResourceConfig extends cdktf.TerraformMetaArguments {
  /**
  * The payload served to clients; returned by the single-resource forms (POST, GET, PATCH), never by listings.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_resource#content McpResource#content}
  */
  readonly content: string;
  /**
  * Optional description.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_resource#description McpResource#description}
  */
  readonly description?: string;
  /**
  * Id of the MCP server that serves it. Changing it replaces the resource.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_resource#mcp_server_id McpResource#mcp_server_id}
  */
  readonly mcpServerId: string;
  /**
  * MIME type of the content; default text/plain.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_resource#mime_type McpResource#mime_type}
  */
  readonly mimeType?: string;
  /**
  * Resource name.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_resource#name McpResource#name}
  */
  readonly name: string;
  /**
  * URI served by resources/list and resources/read; unique within the MCP server.
  *
  * Docs at Terraform Registry: {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_resource#uri McpResource#uri}
  */
  readonly uri: string;
}

/**
* Represents a {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_resource tollgate_mcp_resource}
*/
export class McpResource extends cdktf.TerraformResource {

  // =================
  // STATIC PROPERTIES
  // =================
  public static readonly tfResourceType = "tollgate_mcp_resource";

  // ==============
  // STATIC Methods
  // ==============
  /**
  * Generates CDKTF code for importing a McpResource resource upon running "cdktf plan <stack-name>"
  * @param scope The scope in which to define this construct
  * @param importToId The construct id used in the generated config for the McpResource to import
  * @param importFromId The id of the existing McpResource that should be imported. Refer to the {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_resource#import import section} in the documentation of this resource for the id to use
  * @param provider? Optional instance of the provider where the McpResource to import is found
  */
  public static generateConfigForImport(scope: Construct, importToId: string, importFromId: string, provider?: cdktf.TerraformProvider) {
        return new cdktf.ImportableResource(scope, importToId, { terraformResourceType: "tollgate_mcp_resource", importId: importFromId, provider });
      }

  // ===========
  // INITIALIZER
  // ===========

  /**
  * Create a new {@link https://registry.terraform.io/providers/tollgate/tollgate/latest/docs/resources/mcp_resource tollgate_mcp_resource} Resource
  *
  * @param scope The scope in which to define this construct
  * @param id The scoped construct ID. Must be unique amongst siblings in the same scope
  * @param options McpResourceConfig
  */
  public constructor(scope: Construct, id: string, config: McpResourceConfig) {
    super(scope, id, {
      terraformResourceType: 'tollgate_mcp_resource',
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
    this._content = config.content;
    this._description = config.description;
    this._mcpServerId = config.mcpServerId;
    this._mimeType = config.mimeType;
    this._name = config.name;
    this._uri = config.uri;
  }

  // ==========
  // ATTRIBUTES
  // ==========

  // content - computed: false, optional: false, required: true
  private _content?: string; 
  public get content() {
    return this.getStringAttribute('content');
  }
  public set content(value: string) {
    this._content = value;
  }
  // Temporarily expose input value. Use with caution.
  public get contentInput() {
    return this._content;
  }

  // description - computed: false, optional: true, required: false
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

  // id - computed: true, optional: false, required: false
  public get id() {
    return this.getStringAttribute('id');
  }

  // mcp_server_id - computed: false, optional: false, required: true
  private _mcpServerId?: string; 
  public get mcpServerId() {
    return this.getStringAttribute('mcp_server_id');
  }
  public set mcpServerId(value: string) {
    this._mcpServerId = value;
  }
  // Temporarily expose input value. Use with caution.
  public get mcpServerIdInput() {
    return this._mcpServerId;
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

  // uri - computed: false, optional: false, required: true
  private _uri?: string; 
  public get uri() {
    return this.getStringAttribute('uri');
  }
  public set uri(value: string) {
    this._uri = value;
  }
  // Temporarily expose input value. Use with caution.
  public get uriInput() {
    return this._uri;
  }

  // =========
  // SYNTHESIS
  // =========

  protected synthesizeAttributes(): { [name: string]: any } {
    return {
      content: cdktf.stringToTerraform(this._content),
      description: cdktf.stringToTerraform(this._description),
      mcp_server_id: cdktf.stringToTerraform(this._mcpServerId),
      mime_type: cdktf.stringToTerraform(this._mimeType),
      name: cdktf.stringToTerraform(this._name),
      uri: cdktf.stringToTerraform(this._uri),
    };
  }

  protected synthesizeHclAttributes(): { [name: string]: any } {
    const attrs = {
      content: {
        value: cdktf.stringToHclTerraform(this._content),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      description: {
        value: cdktf.stringToHclTerraform(this._description),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      mcp_server_id: {
        value: cdktf.stringToHclTerraform(this._mcpServerId),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      mime_type: {
        value: cdktf.stringToHclTerraform(this._mimeType),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      name: {
        value: cdktf.stringToHclTerraform(this._name),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      uri: {
        value: cdktf.stringToHclTerraform(this._uri),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
    };

    // remove undefined attributes
    return Object.fromEntries(Object.entries(attrs).filter(([_, value]) => value !== undefined && value.value !== undefined ))
  }
}
