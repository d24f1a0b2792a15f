// Resources and tools the gateway serves itself, without the upstream: the synthetic resources of
// /api/mcp/:id/resources and the mcp_resource rules (optionally exposed as a tool, optionally pointed to from other
// tools' descriptions). Built once per config version. When a URI is defined twice, the first definition wins (API
// resources first, then rules in array order).
import type { McpProxyConfig } from '../../snapshot/snapshot.ts';
import type { McpResourceRule } from '@tollgate/contract';
import { resourceFromRule, resourcePointer, type ResourceEntry } from '../rules/mcp_resource/handler.ts';

export type SyntheticResource = ResourceEntry;

export interface SyntheticTool {
  name: string;
  description: string;
  resource: SyntheticResource;
}

export interface SyntheticCatalog {
  readonly byUri: ReadonlyMap<string, SyntheticResource>;
  readonly resources: readonly SyntheticResource[];
  readonly tools: ReadonlyMap<string, SyntheticTool>;
  /** Text appended to the descriptions of named tools (inject_into_tools). */
  readonly pointers: ReadonlyMap<string, string[]>;
}

export function buildSynthetic(proxy: McpProxyConfig): SyntheticCatalog {
  const byUri = new Map<string, SyntheticResource>();
  const tools = new Map<string, SyntheticTool>();
  const pointers = new Map<string, string[]>();
  for (const r of proxy.resources) {
    if (byUri.has(r.uri)) continue;
    byUri.set(r.uri, { id: r.id, uri: r.uri, name: r.name, description: r.description ?? undefined, mimeType: r.mimeType, content: r.content });
  }
  for (const rule of proxy.rules) {
    if (rule.rule_type !== 'mcp_resource' || !rule.enabled) continue;
    const res = resourceFromRule(rule);
    if (!byUri.has(res.uri)) byUri.set(res.uri, res);
    addTool(tools, rule, res);
    addPointers(pointers, rule);
  }
  return { byUri, resources: [...byUri.values()], tools, pointers };
}

/** The rule's resource as a tool, unless an earlier rule took the name. */
function addTool(tools: Map<string, SyntheticTool>, rule: McpResourceRule, res: SyntheticResource): void {
  if (rule.expose_as_tool && rule.tool_name && !tools.has(rule.tool_name)) {
    tools.set(rule.tool_name, { name: rule.tool_name, description: rule.description || rule.resource_name, resource: res });
  }
}

function addPointers(pointers: Map<string, string[]>, rule: McpResourceRule): void {
  for (const t of rule.inject_into_tools) {
    const list = pointers.get(t) ?? [];
    list.push(resourcePointer(rule));
    pointers.set(t, list);
  }
}

/** The resources/list entry of a synthetic resource. */
export function listEntry(r: SyntheticResource): Record<string, unknown> {
  const e: Record<string, unknown> = { uri: r.uri, name: r.name, mimeType: r.mimeType };
  if (r.description) e.description = r.description;
  if (r.annotations) e.annotations = r.annotations;
  return e;
}

/** The resources/read result of a synthetic resource. */
export function readResult(r: SyntheticResource): Record<string, unknown> {
  return { contents: [{ uri: r.uri, mimeType: r.mimeType, text: r.content }] };
}

/** The tools/list entry of a synthetic tool (no arguments). */
export function toolEntry(t: SyntheticTool): Record<string, unknown> {
  return { name: t.name, description: t.description, inputSchema: { type: 'object', properties: {} } };
}

/** The tools/call result of a synthetic tool. */
export function callResult(t: SyntheticTool): Record<string, unknown> {
  return { content: [{ type: 'text', text: t.resource.content }] };
}
