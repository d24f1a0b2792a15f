// The pinned form of a tool: the five members that reach a model (name, description, inputSchema, outputSchema,
// annotations), normalised the same way on every side (discovery, the gateway's view of tools/list, approval), and
// its fingerprint, SHA-256 of their canonical JSON. docs/mcp-servers.md, "Tool pinning".
import { createHash } from 'node:crypto';
import type { ToolDefinition } from '@tollgate/contract';
import type { McpTool } from '../../../snapshot/snapshot.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON with object keys sorted (by UTF-16 code units) at every depth and no whitespace; undefined members left out. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map((e) => (e === undefined ? 'null' : canonicalJson(e))).join(',')}]`;
  if (isRecord(v)) {
    const keys = Object.keys(v).filter((k) => v[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * The definition of a tool as an upstream sent it. A missing description is "" and a missing inputSchema {} (how
 * discovery always stored them); a member of the wrong type is kept as its JSON text (description) or wrapped under
 * `$invalid` (schemas, annotations), so that changing it still changes the fingerprint. Undefined for an entry that
 * is no tool (not an object, or no string name).
 */
export function toolDefinition(raw: unknown): ToolDefinition | undefined {
  if (!isRecord(raw) || typeof raw.name !== 'string') return undefined;
  const def: ToolDefinition = {
    name: raw.name,
    description: typeof raw.description === 'string' ? raw.description : raw.description === undefined ? '' : canonicalJson(raw.description),
    inputSchema: objectMember(raw.inputSchema) ?? {},
  };
  const output = objectMember(raw.outputSchema);
  if (output) def.outputSchema = output;
  const annotations = objectMember(raw.annotations);
  if (annotations) def.annotations = annotations;
  return def;
}

function objectMember(v: unknown): Record<string, unknown> | undefined {
  if (v === undefined || v === null) return undefined;
  return isRecord(v) ? v : { $invalid: v };
}

export function fingerprint(def: ToolDefinition): string {
  return createHash('sha256').update(canonicalJson(def)).digest('hex');
}

/** A tool as the catalog stores it: its definition and fingerprint. */
export function pinnedTool(def: ToolDefinition): McpTool {
  const tool: McpTool = { name: def.name, description: def.description ?? '', inputSchema: def.inputSchema ?? {} };
  if (def.outputSchema) tool.outputSchema = def.outputSchema;
  if (def.annotations) tool.annotations = def.annotations;
  tool.fingerprint = fingerprint(def);
  return tool;
}

/** The definition of a stored catalog entry (without its fingerprint). */
export function definitionOf(tool: McpTool): ToolDefinition {
  const def: ToolDefinition = { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
  if (tool.outputSchema) def.outputSchema = tool.outputSchema;
  if (tool.annotations) def.annotations = tool.annotations;
  return def;
}
