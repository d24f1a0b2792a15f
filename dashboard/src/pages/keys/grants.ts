// What a key may reach, as the permissions picker holds it: per MCP proxy the ticked tools and resources, per LLM
// proxy the ticked models and any others typed, and the custom tags. Read back from a key's tags (parseKeyTags) to
// edit it; sent as the body of POST /api/keys or PATCH /api/keys/:id (which replaces every permission).
import { parseKeyTags, WILDCARD, type PermissionInput } from '@tollgate/contract';
import { joinList, splitList } from '../../components/list-text.ts';

export interface Grants {
  mcp: Record<string, { tools: string[]; resources: string[] }>;
  llm: Record<string, { models: string[]; other: string }>;
  customTags: string;
}

export const NO_GRANTS: Grants = { mcp: {}, llm: {}, customTags: '' };

/** The picker's state for a key's stored tags; models outside the proxy's list go to its "other models" text. */
export function grantsOfTags(tags: readonly string[], allowedModels: (llmId: string) => readonly string[]): Grants {
  const parsed = parseKeyTags(tags);
  const g: Grants = { mcp: {}, llm: {}, customTags: joinList(parsed.customTags) };
  for (const m of parsed.mcpPermissions) g.mcp[m.id] = { tools: [...m.tools], resources: [...m.resources] };
  for (const l of parsed.llmPermissions) {
    const listed = allowedModels(l.id);
    const known = l.models.filter((m) => m === WILDCARD || listed.includes(m));
    g.llm[l.id] = { models: known, other: joinList(l.models.filter((m) => !known.includes(m))) };
  }
  return g;
}

export function permissionsOf(g: Grants): Required<PermissionInput> {
  return {
    mcpPermissions: Object.entries(g.mcp)
      .filter(([, v]) => v.tools.length || v.resources.length)
      .map(([id, v]) => ({ id, tools: v.tools, resources: v.resources })),
    llmPermissions: Object.entries(g.llm)
      .map(([id, v]) => ({ id, models: [...new Set([...v.models, ...splitList(v.other)])] }))
      .filter((p) => p.models.length),
    customTags: splitList(g.customTags),
  };
}

/** Ticks or unticks one item of a list. */
export function toggled(list: readonly string[], item: string, on: boolean): string[] {
  return on ? [...new Set([...list, item])] : list.filter((i) => i !== item);
}
