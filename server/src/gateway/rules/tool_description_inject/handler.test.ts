import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toolDescriptionInjectSchema } from '@tollgate/contract';
import { buildToolDescriptionInject, injectDescription } from './handler.ts';

test('prepend and append with a blank line; an empty description becomes the text', () => {
  assert.equal(injectDescription('Does X', 'NOTE', 'prepend'), 'NOTE\n\nDoes X');
  assert.equal(injectDescription('Does X', 'NOTE', 'append'), 'Does X\n\nNOTE');
  assert.equal(injectDescription('', 'NOTE', 'append'), 'NOTE');
});

test('only the tools in scope change', () => {
  const [h] = buildToolDescriptionInject([{ rule: toolDescriptionInjectSchema.parse({ rule_type: 'tool_description_inject', tools: ['a'], inject_text: '!', inject_position: 'append' }), index: 0 }]);
  const tools: Array<Record<string, unknown>> = [{ name: 'a', description: 'A' }, { name: 'b', description: 'B' }, { name: 'c' }];
  h!.onToolsList!(tools);
  assert.deepEqual(tools, [{ name: 'a', description: 'A\n\n!' }, { name: 'b', description: 'B' }, { name: 'c' }]);
});
