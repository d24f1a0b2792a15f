// mcp_resource: a static resource the gateway serves itself (resources/list, resources/read) without contacting the
// upstream, optionally also as a synthetic tool without arguments (expose_as_tool + tool_name) whose result is the
// content, and optionally pointed to from other tools' descriptions (inject_into_tools). `audience` and `priority`
// become the resource's MCP annotations. Access: key tag `mcp:<id>:resource:<resource_id>` (or `resource:*`) for
// the resource, `mcp:<id>:tool:<tool_name>` (or `tool:*`) for the tool. The MCP handler merges these entries with
// the proxy's API resources (mcp/synthetic.ts).
import type { McpResourceRule } from '@tollgate/contract';

export interface ResourceEntry {
  id: string;
  uri: string;
  name: string;
  description?: string;
  mimeType: string;
  content: string;
  annotations?: { audience?: string[]; priority?: number };
}

export function resourceFromRule(rule: McpResourceRule): ResourceEntry {
  const annotations: ResourceEntry['annotations'] = {};
  if (rule.audience.length) annotations.audience = rule.audience;
  if (rule.priority !== undefined) annotations.priority = rule.priority;
  return {
    id: rule.resource_id, uri: rule.uri, name: rule.resource_name, description: rule.description || undefined,
    mimeType: rule.mime_type, content: rule.content, annotations: Object.keys(annotations).length ? annotations : undefined,
  };
}

/** The text added to the description of each tool in inject_into_tools. */
export function resourcePointer(rule: McpResourceRule): string {
  return `See also the resource "${rule.resource_name}" (${rule.uri}).`;
}
