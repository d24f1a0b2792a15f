// The spec schema of each kind: the structural form of its zod spec (kinds/specs.ts), with what zod cannot say in a
// structural schema added here: the cross-field CEL rules, immutable fields, the list-map of an McpProxy's resources,
// and the RuleSet's rule items in their flat form.
import { JWT_PIN_REQUIRED, JWT_PINNED_CLAIMS, RULE_TYPES, RULE_TYPES_BY_KIND, KIND_RULE_CEL, type ProxyKind } from '@tollgate/contract';
import { KINDS, type Kind, type TargetKind } from '../kinds/specs.ts';
import { structuralSchema, type JsonSchema } from './structural.ts';
import { addValidations, celString, nodeAt, type Validation } from './cel.ts';
import { ruleItemSchema } from './rule-items.ts';

/**
 * The inbound auth object of both proxies: jwt mode checks tokens against jwksJson, so it needs one, and pins the
 * audience and the issuer (the contract's JWT_PINNED_CLAIMS), so that a shared identity provider's tokens for other
 * applications do not open the proxy.
 */
const INBOUND_AUTH_RULES: Validation[] = [
  { rule: "self.mode != 'jwt' || has(self.jwksJson)", message: 'jwksJson is required when mode is jwt', fieldPath: '.jwksJson', reason: 'FieldValueRequired' },
  ...JWT_PINNED_CLAIMS.map((c): Validation => ({
    rule: `self.mode != 'jwt' || has(self.${c})`, message: `${c} ${JWT_PIN_REQUIRED}`, fieldPath: `.${c}`, reason: 'FieldValueRequired',
  })),
];

/**
 * Taking over a remote object happens once, when the object is created: an adoptId added or changed later would point
 * an object that already has a remote object at another one (docs/kubernetes.md#adopting-existing-objects).
 */
const ADOPT_ID_IMMUTABLE: Validation = {
  rule: 'has(self.adoptId) == has(oldSelf.adoptId) && (!has(self.adoptId) || self.adoptId == oldSelf.adoptId)',
  message: 'adoptId is immutable: set it when creating the object', fieldPath: '.adoptId',
};

/** A proxy grants each namespace once: the API server refuses duplicates and a server-side apply merges by namespace. */
function grantsByNamespace(spec: JsonSchema): void {
  const grants = nodeAt(spec, 'grants');
  grants['x-kubernetes-list-type'] = 'map';
  grants['x-kubernetes-list-map-keys'] = ['namespace'];
}

function mcpProxy(spec: JsonSchema): void {
  addValidations(spec, ADOPT_ID_IMMUTABLE);
  grantsByNamespace(spec);
  // type has a default, so the API server has filled it in before these run.
  addValidations(nodeAt(spec, 'upstreamAuth'),
    { rule: "self.type != 'bearer' || has(self.tokenSecretRef)", message: 'tokenSecretRef is required when type is bearer', fieldPath: '.tokenSecretRef', reason: 'FieldValueRequired' },
    { rule: "self.type == 'bearer' || !has(self.tokenSecretRef)", message: 'tokenSecretRef must not be set unless type is bearer', fieldPath: '.tokenSecretRef', reason: 'FieldValueForbidden' });
  addValidations(nodeAt(spec, 'auth'), ...INBOUND_AUTH_RULES);
  // A resource is keyed by its uri (the management API refuses two with one uri): the API server enforces uniqueness
  // natively and a server-side apply merges resources by uri.
  const resources = nodeAt(spec, 'resources');
  resources['x-kubernetes-list-type'] = 'map';
  resources['x-kubernetes-list-map-keys'] = ['uri'];
}

function llmProxy(spec: JsonSchema): void {
  addValidations(nodeAt(spec, 'auth'), ...INBOUND_AUTH_RULES);
  addValidations(spec, ADOPT_ID_IMMUTABLE);
  grantsByNamespace(spec);
}

function apiKey(spec: JsonSchema): void {
  // The operator marks the keys it creates with k8s: tags (their UID is how it finds them); a custom tag there could
  // make one ApiKey's key look like another's.
  addValidations(nodeAt(spec, 'customTags'), {
    rule: "self.all(t, !t.lowerAscii().startsWith('k8s:'))", message: 'the "k8s:" namespace is reserved for the operator\'s own tags',
  });
  // The key's Secret is owned by the ApiKey and named once; renaming it would orphan the plaintext.
  addValidations(spec, {
    rule: 'has(self.secretName) == has(oldSelf.secretName) && (!has(self.secretName) || self.secretName == oldSelf.secretName)',
    message: 'secretName is immutable', fieldPath: '.secretName',
  }, ADOPT_ID_IMMUTABLE);
}

const TARGET_KIND: Record<ProxyKind, TargetKind> = { mcp: 'McpProxy', llm: 'LlmProxy' };

/** RULE_TYPES_BY_KIND and the contract's kindProblem (KIND_RULE_CEL) for the target's kind, over the whole list. */
function targetKindRules(kind: ProxyKind): Validation[] {
  const target = TARGET_KIND[kind];
  const notHere = `self.targetRef.kind != ${celString(target)}`;
  const types = RULE_TYPES.filter((t) => !RULE_TYPES_BY_KIND[kind].includes(t)).map((t) => ({
    rule: `${notHere} || !self.rules.exists(r, r.rule_type == ${celString(t)})`,
    message: `rule_type ${t} is not valid on ${target} targets`, fieldPath: '.rules',
  }));
  const checks = KIND_RULE_CEL[kind].map((c) => ({
    rule: `${notHere} || self.rules.all(r, ${c.cel})`, message: `${c.message} on ${target} targets`, fieldPath: '.rules',
  }));
  return [...types, ...checks];
}

function ruleSet(spec: JsonSchema): void {
  addValidations(nodeAt(spec, 'targetRef'), { rule: 'self == oldSelf', message: 'targetRef is immutable' });
  const rules = nodeAt(spec, 'rules');
  rules.items = ruleItemSchema();
  addValidations(spec, ...targetKindRules('mcp'), ...targetKindRules('llm'), {
    // Within one RuleSet; names across the RuleSets of a proxy are checked by the operator.
    rule: "self.rules.all(r, r.rule_type != 'rate_limit' || !has(r.name) || self.rules.exists_one(o, o.rule_type == 'rate_limit' && has(o.name) && o.name == r.name))",
    message: 'rate_limit names must be unique', fieldPath: '.rules',
  });
}

const EDITS: Record<Kind, (spec: JsonSchema) => void> = { McpProxy: mcpProxy, LlmProxy: llmProxy, ApiKey: apiKey, RuleSet: ruleSet };

export function specSchema(kind: Kind): JsonSchema {
  const spec = structuralSchema(KINDS[kind].spec);
  EDITS[kind](spec);
  return spec;
}
