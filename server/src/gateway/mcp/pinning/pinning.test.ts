// The pure parts of tool pinning: canonical JSON, the fingerprint, the readable diff and what each mode decides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { McpProxyConfig } from '../../../snapshot/snapshot.ts';
import { canonicalJson, fingerprint, pinnedTool, toolDefinition } from './definition.ts';
import { diffDefinitions, MAX_DIFF_ENTRIES, MAX_DIFF_TEXT } from './diff.ts';
import { blockingTools, compareTools, judgeTool, pinningView, type Observation } from './policy.ts';

test('canonical JSON sorts keys at every depth, keeps array order and has no whitespace', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' }, u: undefined }), '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
  assert.equal(canonicalJson({ 'é': 1, e: 2, E: 3 }), '{"E":3,"e":2,"é":1}');
});

test('the fingerprint is SHA-256 of the canonical definition; key order and unknown members do not change it', () => {
  const a = toolDefinition({ name: 't', description: 'd', inputSchema: { type: 'object', properties: { x: { type: 'string' } } }, title: 'T', _meta: { k: 1 } })!;
  const b = toolDefinition({ inputSchema: { properties: { x: { type: 'string' } }, type: 'object' }, description: 'd', name: 't' })!;
  assert.equal(fingerprint(a), fingerprint(b));
  assert.equal(fingerprint(a), createHash('sha256').update('{"description":"d","inputSchema":{"properties":{"x":{"type":"string"}},"type":"object"},"name":"t"}').digest('hex'));
  const annotated = toolDefinition({ name: 't', description: 'd', inputSchema: a.inputSchema, annotations: { readOnlyHint: true } })!;
  assert.notEqual(fingerprint(annotated), fingerprint(a), 'annotations are pinned');
  assert.notEqual(fingerprint(toolDefinition({ ...b, outputSchema: { type: 'object' } })!), fingerprint(a), 'the output schema is pinned');
});

test('a missing description is "", a member of the wrong type still counts', () => {
  assert.equal(fingerprint(toolDefinition({ name: 't' })!), fingerprint(toolDefinition({ name: 't', description: '', inputSchema: {} })!));
  assert.notEqual(fingerprint(toolDefinition({ name: 't', description: 42 })!), fingerprint(toolDefinition({ name: 't' })!));
  assert.equal(toolDefinition({ description: 'no name' }), undefined);
  assert.equal(toolDefinition('x'), undefined);
});

test('the diff names each changed member by path with old and new text, bounded', () => {
  const before = toolDefinition({ name: 't', description: 'old', inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } })!;
  const after = toolDefinition({ name: 't', description: 'new', inputSchema: { type: 'object', properties: { a: { type: 'number' }, 'b c': {} }, required: ['a', 'b c'] } })!;
  assert.deepEqual(diffDefinitions(before, after), {
    diff: [
      { path: 'description', before: 'old', after: 'new' },
      { path: 'inputSchema.properties.a.type', before: 'string', after: 'number' },
      { path: 'inputSchema.properties."b c"', before: null, after: '{}' },
      { path: 'inputSchema.required', before: '["a"]', after: '["a","b c"]' },
    ],
    omitted: 0,
  });
  const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${String(i).padStart(2, '0')}`, {}]));
  const d = diffDefinitions(toolDefinition({ name: 't', inputSchema: { properties: {} } })!, toolDefinition({ name: 't', description: 'x'.repeat(1500), inputSchema: { properties: many } })!);
  assert.equal(d.diff.length, MAX_DIFF_ENTRIES);
  assert.equal(d.omitted, 21 - MAX_DIFF_ENTRIES, 'the description and 20 properties, 16 kept');
  assert.deepEqual(diffDefinitions(null, toolDefinition({ name: 't' })!).diff.map((e) => e.path), ['description', 'inputSchema', 'name'], 'an added tool: every member, whole');
  assert.equal(d.diff[0]!.path, 'description');
  assert.equal(d.diff[0]!.after, `${'x'.repeat(MAX_DIFF_TEXT)}… (500 more characters)`);
});

function proxy(mode: McpProxyConfig['toolPinning'], pending: string[] = []): McpProxyConfig {
  const lookup = pinnedTool(toolDefinition({ name: 'lookup', description: 'Looks up' })!);
  return {
    kind: 'mcp', id: 'p', userId: 'u', name: 'p', upstreamUrl: 'https://x.test/', pin: null, auth: { mode: 'svc_api_key', clockSkewS: 30 }, rules: [],
    limits: { mcpMaxRespBodyKb: 512, llmMaxRespBodyKb: 2048, mcpMaxReqBodyKb: 4096, llmMaxReqBodyKb: 32768 }, upstreamToken: undefined,
    tools: [lookup], resources: [], toolPinning: mode,
    pendingToolChanges: pending.map((tool) => ({ tool, fingerprint: 'f', definition: { name: tool }, detectedAt: 1 })),
  };
}

test('off compares nothing; the other modes compare every upstream tool with the pinned one', () => {
  assert.equal(pinningView(proxy('off')), undefined);
  assert.equal(pinningView(proxy(undefined)), undefined, 'a snapshot without the setting is off');
  const view = pinningView(proxy('hide'))!;
  const found = compareTools(view, [{ name: 'lookup', description: 'Looks up' }, { name: 'lookup2' }, { name: 'syn' }, 'junk'], new Set(['syn']));
  assert.deepEqual(found.map((f) => [f.tool, f.change, f.pinnedFingerprint === null]), [['lookup2', 'added', true]]);
  const changed = compareTools(view, [{ name: 'lookup', description: 'Now evil' }]);
  assert.deepEqual(changed.map((f) => [f.tool, f.change]), [['lookup', 'changed']]);
});

test('hide and block withhold unapproved and changed tools; block is blocked while anything differs', () => {
  const none = new Map<string, Observation>();
  const view = pinningView(proxy('hide'))!;
  assert.equal(judgeTool(view, 'lookup', none), undefined);
  assert.equal(judgeTool(view, 'other', none), 'added');
  const seen = new Map([['lookup', { tool: 'lookup' } as Observation]]);
  assert.equal(judgeTool(view, 'lookup', seen), 'changed');
  assert.equal(judgeTool(pinningView(proxy('hide', ['lookup']))!, 'lookup', none), 'changed', 'pending in the snapshot');
  assert.deepEqual(blockingTools(view, seen), [], 'hide never blocks the proxy');
  assert.deepEqual(blockingTools(pinningView(proxy('block', ['b']))!, seen), ['b', 'lookup']);
  assert.deepEqual(blockingTools(pinningView(proxy('block'))!, none), []);
});
