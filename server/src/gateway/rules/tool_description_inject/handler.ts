// tool_description_inject: adds text to the descriptions of the matching tools in tools/list results (never at call
// time). `prepend` puts the text before the description, `append` after it, separated by a blank line when the
// description is not empty.
import type { RuleEntry } from '../../pipeline/build.ts';
import { toolScope } from '../../pipeline/scope.ts';
import type { McpRuleHandler } from '../../mcp/rule-hooks.ts';
import type { ToolDescriptionInjectRule } from '@tollgate/contract';

export function injectDescription(description: string, text: string, position: 'prepend' | 'append'): string {
  if (!description) return text;
  return position === 'prepend' ? `${text}\n\n${description}` : `${description}\n\n${text}`;
}

export function buildToolDescriptionInject(entries: RuleEntry<ToolDescriptionInjectRule>[]): McpRuleHandler[] {
  return entries.map(({ rule, index }) => {
    const scope = toolScope(rule.tools);
    return {
      ruleType: 'tool_description_inject', index, ruleName: `tool_description_inject#${index}`, scope,
      onToolsList(tools) {
        for (const t of tools) {
          if (typeof t.name !== 'string' || !scope.has(t.name)) continue;
          t.description = injectDescription(typeof t.description === 'string' ? t.description : '', rule.inject_text, rule.inject_position);
        }
      },
    };
  });
}
