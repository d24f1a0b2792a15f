// Walks every rule type through every surface a user meets it on, from the one place it is declared (its folder under
// contract/src/rules/, listed by all.ts): the contract (schema, kinds, example), the management API (a PUT and GET
// of the example through the typed client on each kind that accepts it, a 400 on a kind that does not), the gateway
// (a server on each of those kinds: RULE_SERVERS), the OpenAPI document, the RuleSet CRD, the Terraform provider's
// schema and the rule reference. docs/architecture.md ("Adding a rule type") lists the files such a change touches;
// when one of them is forgotten, this test names the surface and the rule type.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import {
  PROXY_KINDS, RULE_EXAMPLES, RULE_SCHEMAS, RULE_TYPES, RULE_TYPES_BY_KIND, ruleSchema, type ProxyKind, type RuleType,
} from '@tollgate/contract';
import { RULE_SERVERS } from '../server/src/gateway/pipeline/rule-servers.ts';
import type { RuleBuilders } from '../server/src/gateway/pipeline/build.ts';
import { must, startTestApp, type TestApp, type TestUser } from '@tollgate/testkit/harness.ts';
import { tollgateProvider } from '../provider/src/provider.ts';

const root = new URL('../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** The fields a client may send for a rule type (the schema's own keys: rule_type, enabled, tools and the type's). */
const fieldsOf = (type: RuleType) => Object.keys(RULE_SCHEMAS[type].shape);
/** Documented once for every rule, in the common table of docs/rules.md. */
const COMMON_FIELDS = new Set(['rule_type', 'enabled', 'tools']);
const ownFieldsOf = (type: RuleType) => fieldsOf(type).filter((f) => !COMMON_FIELDS.has(f));

let t: TestApp;
let user: TestUser;
before(async () => {
  t = await startTestApp({ env: { TOLLGATE_PROVIDER_BASE_URL_OPENAI: 'http://127.0.0.1:9' } });
  user = await t.createUser();
});
after(async () => { await t?.close(); });

async function proxyOf(kind: ProxyKind): Promise<string> {
  const api = t.client(user.pat);
  if (kind === 'mcp') return must(await api.call('POST /api/mcp', { body: { name: 'surfaces', url: 'http://127.0.0.1:9/mcp' } })).server.id;
  return must(await api.call('POST /api/llm', { body: { name: 'surfaces', provider: 'openai' } })).id;
}

test('contract: every rule type has a schema, at least one proxy kind and an example the schema accepts', () => {
  for (const type of RULE_TYPES) {
    const kinds = PROXY_KINDS.filter((k) => RULE_TYPES_BY_KIND[k].includes(type));
    assert.ok(kinds.length > 0, `${type}: valid on no proxy kind`);
    const parsed = ruleSchema.safeParse(RULE_EXAMPLES[type]);
    assert.ok(parsed.success, `${type}: its example does not parse: ${parsed.success ? '' : parsed.error.message}`);
  }
});

test('management API: the example is stored and read back on each kind that accepts it, and refused on the others', async () => {
  const api = t.client(user.pat);
  const ids = { mcp: await proxyOf('mcp'), llm: await proxyOf('llm') };
  for (const type of RULE_TYPES) {
    for (const kind of PROXY_KINDS) {
      const route = kind === 'mcp' ? 'PUT /api/mcp/:id/rules' as const : 'PUT /api/llm/:id/rules' as const;
      const put = await api.call(route, { params: { id: ids[kind] }, body: { rules: [RULE_EXAMPLES[type]] } });
      if (!RULE_TYPES_BY_KIND[kind].includes(type)) {
        assert.equal(put.ok ? 200 : put.error.status, 400, `${kind} ${type}: a kind that does not accept the type must refuse it`);
        continue;
      }
      assert.ok(put.ok, `${kind} ${type}: ${put.ok ? '' : put.error.message}`);
      const got = must(await api.call(kind === 'mcp' ? 'GET /api/mcp/:id/rules' : 'GET /api/llm/:id/rules', { params: { id: ids[kind] } }));
      assert.deepEqual(got.rules, [RULE_SCHEMAS[type].parse(RULE_EXAMPLES[type])], `${kind} ${type}: read back as stored`);
    }
  }
});

test('gateway: each kind serves exactly the rule types it accepts (an unserved rule would deny every request)', () => {
  for (const kind of PROXY_KINDS) {
    const servers = RULE_SERVERS[kind] as RuleBuilders;
    for (const type of RULE_TYPES) {
      assert.equal(typeof servers[type] === 'function', RULE_TYPES_BY_KIND[kind].includes(type), `${kind} ${type}`);
    }
  }
});

test('OpenAPI: docs/openapi.json has a Rule branch per type with every field', () => {
  const doc = JSON.parse(read('docs/openapi.json')) as { components: { schemas: { Rule: { oneOf: Array<{ properties: Record<string, { const?: string }> }> } } } };
  for (const type of RULE_TYPES) {
    const branch = doc.components.schemas.Rule.oneOf.find((b) => b.properties.rule_type?.const === type);
    assert.ok(branch, `${type}: no branch in components.schemas.Rule (run npm run gen)`);
    assert.deepEqual(Object.keys(branch.properties).sort(), fieldsOf(type).sort(), `${type}: OpenAPI fields`);
  }
});

test('Kubernetes: the RuleSet CRD accepts the type and declares every field of it', () => {
  const crd = parseYaml(read('crds/rulesets.tollgate.dev.yaml')) as {
    spec: { versions: Array<{ name: string; schema: { openAPIV3Schema: { properties: { spec: { properties: { rules: { items: { properties: Record<string, { enum?: string[] }> } } } } } } } }> };
  };
  for (const version of crd.spec.versions) {
    const items = version.schema.openAPIV3Schema.properties.spec.properties.rules.items.properties;
    for (const type of RULE_TYPES) {
      assert.ok(items.rule_type?.enum?.includes(type), `${version.name} ${type}: not in rule_type's enum`);
      for (const field of fieldsOf(type)) assert.ok(field in items, `${version.name} ${type}: field ${field} missing from the CRD`);
    }
  }
});

test('Terraform: tollgate_rule_set has every field of every type as a rule attribute, and its reference page names them', () => {
  const rules = tollgateProvider({}).resources.tollgate_rule_set!.schema.attributes.rules;
  const attributes = rules && 'nested' in rules ? rules.nested!.attributes : {};
  const page = read('docs/terraform/resources/tollgate_rule_set.md');
  for (const type of RULE_TYPES) {
    for (const field of fieldsOf(type)) {
      assert.ok(field in attributes, `${type}: field ${field} missing from tollgate_rule_set.rules`);
      assert.ok(page.includes(`\`rules.${field}\``), `${type}: field ${field} missing from docs/terraform/resources/tollgate_rule_set.md`);
    }
  }
});

test('docs: docs/rules.md has a section per type that names every field', () => {
  const doc = read('docs/rules.md');
  for (const type of RULE_TYPES) {
    const start = doc.indexOf(`\n## ${type}\n`);
    assert.ok(start >= 0, `${type}: no "## ${type}" section in docs/rules.md`);
    const section = doc.slice(start + 1, doc.indexOf('\n## ', start + 1));
    for (const field of ownFieldsOf(type)) assert.ok(section.includes(`| \`${field}\` |`), `${type}: field ${field} not in its section's table`);
  }
  const common = doc.slice(doc.indexOf('\n## Fields every rule has\n'), doc.indexOf('\n## ', doc.indexOf('\n## Fields every rule has\n') + 1));
  for (const field of COMMON_FIELDS) assert.ok(common.includes(`| \`${field}\` |`), `${field} not in "Fields every rule has"`);
  for (const type of RULE_TYPES) {
    for (const field of COMMON_FIELDS) assert.ok(fieldsOf(type).includes(field), `${type} lacks the common field ${field}`);
  }
});
