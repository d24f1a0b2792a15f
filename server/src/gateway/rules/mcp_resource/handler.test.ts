import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSynthetic } from '../../mcp/synthetic.ts';
import { fakeWorld } from '@tollgate/testkit/exchange.ts';
import { mcpResourceSchema } from '@tollgate/contract';
import { resourceFromRule, resourcePointer } from './handler.ts';

const rule = (r: Record<string, unknown> = {}) => mcpResourceSchema.parse({
  rule_type: 'mcp_resource', tools: ['*'], resource_id: 'faq', uri: 'syn://faq', resource_name: 'FAQ', content: 'text', ...r,
});

test('a rule becomes a resource with annotations and a pointer text', () => {
  assert.deepEqual(resourceFromRule(rule({ audience: ['user'], priority: 0.2, description: 'D', mime_type: 'text/markdown' })), {
    id: 'faq', uri: 'syn://faq', name: 'FAQ', description: 'D', mimeType: 'text/markdown', content: 'text', annotations: { audience: ['user'], priority: 0.2 },
  });
  assert.equal(resourceFromRule(rule()).annotations, undefined);
  assert.equal(resourcePointer(rule()), 'See also the resource "FAQ" (syn://faq).');
});

test('the catalog merges API resources and enabled rules; the first definition of a URI wins', () => {
  const w = fakeWorld([
    rule({ uri: 'syn://dup', resource_id: 'r1', expose_as_tool: true, tool_name: 'get_dup', inject_into_tools: ['search'] }),
    rule({ uri: 'syn://off', resource_id: 'r2', enabled: false }),
    rule({ uri: 'syn://new', resource_id: 'r3' }),
  ], { resources: [{ id: 'api-1', uri: 'syn://dup', name: 'From API', description: null, mimeType: 'text/plain', content: 'api' }] });
  const cat = buildSynthetic(w.proxy);
  assert.deepEqual(cat.resources.map((r) => [r.uri, r.id]), [['syn://dup', 'api-1'], ['syn://new', 'r3']]);
  assert.equal(cat.tools.get('get_dup')?.resource.id, 'r1', 'the tool serves its own rule content');
  assert.deepEqual(cat.pointers.get('search'), ['See also the resource "FAQ" (syn://dup).']);
});
