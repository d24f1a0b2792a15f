// The `tools` field of a rule as a matcher, built once per rule. `['*']` applies to every request (also those that
// name no tool, such as initialize or an LLM completion); a list applies only to requests touching a listed tool.
import type { ToolScope } from './types.ts';

export function toolScope(tools: readonly string[]): ToolScope {
  if (tools.includes('*')) return { all: true, matches: () => true, has: () => true };
  const set = new Set(tools);
  return {
    all: false,
    matches: (ts) => ts.some((t) => set.has(t)),
    has: (t) => t !== undefined && set.has(t),
  };
}
