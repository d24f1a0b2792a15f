// Lists typed as text (models, CIDRs, tool names): one item per line or separated by commas.
export function splitList(text: string): string[] {
  return text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
}

export function joinList(items: readonly string[] | undefined): string {
  return (items ?? []).join('\n');
}
