// The spec of each custom resource (docs/kubernetes.md#the-kinds), as zod built from the contract's request schemas:
// the REST fields in camelCase with every secret replaced by a reference to a Secret in the object's namespace, and
// rule objects with their REST fields as they are. The CRDs under crds/ are generated from these, and the operator parses each object's
// spec with them, so what the API server admits and what the operator accepts cannot drift apart.
import { z } from 'zod';
import {
  KEY_LIMITS, PROVIDER_IDS, budgetSchema, createLlmProxySchema, inboundAuthSchema,
  mcpCreateSchema, resourceCreateSchema,
} from '@tollgate/contract';

export const GROUP = 'tollgate.dev';
export const VERSION = 'v1beta1';
/** Still served, deprecated in favour of VERSION (docs/kubernetes.md#api-versions-and-deprecation-policy). */
export const DEPRECATED_VERSIONS = ['v1alpha1'] as const;
export const API_VERSION = `${GROUP}/${VERSION}`;
export const FINALIZER = 'tollgate.dev/cleanup';
/** The annotation that asks for a new client key: any new value rotates the ApiKey's key once. */
export const ROTATE_ANNOTATION = 'tollgate.dev/rotate';
export const DEFAULT_CONNECTION_SECRET = 'tollgate-connection';

/** Kubernetes object names (DNS subdomain). */
const objectName = z.string().min(1).max(253).regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a Kubernetes object name');

export const localObjectRefSchema = z.object({
  name: objectName.describe('Name of an object in the same namespace.'),
}).describe('A reference to an object in the same namespace.');

/** Kubernetes namespace names (DNS label). */
const namespaceName = z.string().min(1).max(63).regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a Kubernetes namespace name');

/**
 * A reference from an ApiKey to a proxy, in its own namespace or (namespace set) in another one whose proxy grants
 * the key's namespace in spec.grants (docs/kubernetes.md#shared-proxies-across-namespaces).
 */
export const proxyRefSchema = (kind: 'McpProxy' | 'LlmProxy') => z.object({
  name: objectName.describe(`Name of the ${kind}.`),
  namespace: namespaceName.optional()
    .describe(`Namespace of the ${kind}; default the ApiKey's own. Another namespace needs the ${kind} to list this ApiKey's namespace in its spec.grants.`),
}).describe(`An ${kind}, in this namespace or in one that grants it.`);

export const secretKeyRefSchema = z.object({
  name: objectName.describe('Name of a Secret in the same namespace.'),
  key: z.string().min(1).max(253).regex(/^[-._a-zA-Z0-9]+$/, 'must be a Secret data key').describe('Key within the Secret.'),
}).describe('A key of a Secret in the same namespace.');

const connectionRef = localObjectRefSchema.optional()
  .describe(`Secret with the keys url and token (a personal access token) of the management API; default ${DEFAULT_CONNECTION_SECRET}. The token's user owns the remote object.`);

export const DELETION_POLICIES = ['Delete', 'Orphan'] as const;
export type DeletionPolicy = (typeof DELETION_POLICIES)[number];
const deletionPolicy = z.enum(DELETION_POLICIES).default('Delete')
  .describe('What deleting this object does to the remote object: Delete (default) deletes it; Orphan leaves it in place and removes the operator\'s ownership mark, so that another object (or Terraform) can take it over.');

/** The id of a remote object to take over (docs/kubernetes.md#adopting-existing-objects); the CRD makes it immutable. */
const adoptId = (what: string) => z.string().min(1).max(128).regex(/^[A-Za-z0-9._-]+$/, 'must be an id of the management API').optional()
  .describe(`Id of an existing ${what} (made through REST, Terraform or the dashboard) that this object takes over instead of creating one: the same id, host and keys, updated to this spec. The id Terraform imports. Refused (AdoptionRefused) while another object owns it. Immutable.`);

/** Namespaces whose ApiKeys may use a proxy, in the style of a Gateway API ReferenceGrant: the referenced side grants. */
const grants = z.array(z.object({
  namespace: namespaceName.describe('A namespace whose ApiKeys may reference this proxy.'),
})).max(100).default([])
  .describe('Namespaces whose ApiKeys may reference this proxy (proxyRef.namespace). Their keys are created through this proxy\'s connection, so under its user; removing a namespace deletes those keys.');

const displayName = z.string().trim().min(1).max(150)
  .describe('Name shown in the management API and dashboard; default metadata.name. The operator appends the object\'s UID to it remotely, which is how a restarted operator finds what it created.');

/** Resources of an McpProxy are kept small: the whole object must fit in etcd (about 1.5 MB). */
export const MAX_CR_RESOURCE_CONTENT = 256 * 1024;
export const MAX_CR_RESOURCES = 50;

export const mcpProxySpecSchema = z.object({
  connectionRef,
  displayName: displayName.optional(),
  adoptId: adoptId('MCP server'),
  deletionPolicy,
  grants,
  url: mcpCreateSchema.shape.url,
  upstreamAuth: z.object({
    type: z.enum(['none', 'bearer']).default('none').describe('none, or a bearer token read from tokenSecretRef.'),
    tokenSecretRef: secretKeyRefSchema.optional().describe('The upstream bearer token; required if and only if type is bearer.'),
  }).optional().describe('How Tollgate authenticates to the upstream MCP server.'),
  auth: inboundAuthSchema.optional().describe('Inbound auth, from clients to the proxy; absent means client API keys (svc_api_key).'),
  discoverTools: z.boolean().default(true).describe('Run tool discovery (tools/list on the upstream) after every change of url or upstream auth.'),
  toolPinning: mcpCreateSchema.shape.toolPinning,
  resources: z.array(resourceCreateSchema.extend({
    content: z.string().max(MAX_CR_RESOURCE_CONTENT, `must be at most ${MAX_CR_RESOURCE_CONTENT} characters`)
      .describe('The payload served to clients.'),
  })).max(MAX_CR_RESOURCES).default([]).describe('Synthetic static resources served by the proxy; keyed by uri.'),
}).describe('An MCP server behind Tollgate.');

export const llmProxySpecSchema = z.object({
  connectionRef,
  displayName: displayName.optional(),
  adoptId: adoptId('LLM proxy'),
  deletionPolicy,
  grants,
  provider: z.enum(PROVIDER_IDS).describe('The LLM provider.'),
  providerKeySecretRef: secretKeyRefSchema.optional().describe('The upstream provider key.'),
  allowedModels: createLlmProxySchema.shape.allowedModels,
  defaultModel: z.string().min(1).max(256).optional().describe('Model for clients that send none.'),
  logConversations: z.boolean().default(false).describe('Store prompts and completions, encrypted, for 7 days.'),
  auth: inboundAuthSchema.optional().describe('Inbound auth; absent means client API keys (svc_api_key).'),
  budget: budgetSchema.optional().describe('Proxy-level budget; absent means none.'),
}).describe('An LLM provider behind Tollgate.');

const permissionItems = z.array(z.string().min(1).max(KEY_LIMITS.itemLength)).max(KEY_LIMITS.itemsPerPermission);

export const apiKeySpecSchema = z.object({
  connectionRef,
  adoptId: adoptId('client key'),
  deletionPolicy,
  mcpPermissions: z.array(z.object({
    proxyRef: proxyRefSchema('McpProxy'),
    tools: permissionItems.default([]).describe('Tool names from the proxy\'s discovered catalog, or ["*"].'),
    resources: permissionItems.default([]).describe('URIs of the proxy\'s spec.resources, or ["*"].'),
  })).max(KEY_LIMITS.permissionsPerKind).default([]).describe('MCP grants.'),
  llmPermissions: z.array(z.object({
    proxyRef: proxyRefSchema('LlmProxy'),
    models: permissionItems.min(1).describe('Model ids, or ["*"].'),
  })).max(KEY_LIMITS.permissionsPerKind).default([]).describe('LLM grants.'),
  customTags: z.array(z.string().min(1).max(KEY_LIMITS.itemLength)
    .refine((t) => !t.trim().toLowerCase().startsWith('k8s:'), 'the "k8s:" namespace is reserved for the operator\'s own tags'))
    .max(KEY_LIMITS.customTags - 2).default([])
    .describe('Free-form tags kept as given (the namespaces svc:, private:, name:, mcp:, llm: and k8s: are reserved).'),
  llmBudgets: z.array(z.object({
    proxyRef: proxyRefSchema('LlmProxy'),
    // The per-key budget route takes the contract's budget body: the same fields, checks and descriptions.
    period: budgetSchema.shape.period,
    capUsd: budgetSchema.shape.capUsd,
    hardBlock: budgetSchema.shape.hardBlock,
  })).max(KEY_LIMITS.permissionsPerKind).default([]).describe('Per-key budgets on LLM proxies.'),
  secretName: objectName.optional().describe('Secret (owned by this ApiKey) that receives the plaintext key under the key "key"; default metadata.name.'),
}).describe('A client API key whose plaintext lives in a Secret.');

export const TARGET_KINDS = ['McpProxy', 'LlmProxy'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];
export const MAX_RULES_PER_RULESET = 100;

export const ruleSetSpecSchema = z.object({
  connectionRef,
  deletionPolicy,
  targetRef: z.object({
    kind: z.enum(TARGET_KINDS).describe('McpProxy or LlmProxy.'),
    name: objectName.describe('Name of the proxy in the same namespace.'),
  }).describe('The proxy whose rules this set contributes to.'),
  order: z.number().int().min(-1_000_000).max(1_000_000).default(0)
    .describe('Rule sets of one proxy are concatenated by (order, metadata.name).'),
  // Each rule is checked with the contract's rule schemas by the operator; the CRD gives the flat, structural form
  // of the same union (generated from the rule schemas, with CEL rules for the per-type fields).
  rules: z.array(z.looseObject({ rule_type: z.string() })).max(MAX_RULES_PER_RULESET).default([])
    .describe('Firewall rules with their REST fields (snake_case), in order.'),
}).describe('Firewall rules for one proxy.');

export type McpProxySpec = z.output<typeof mcpProxySpecSchema>;
export type LlmProxySpec = z.output<typeof llmProxySpecSchema>;
export type ApiKeySpec = z.output<typeof apiKeySpecSchema>;
export type RuleSetSpec = z.output<typeof ruleSetSpecSchema>;

export const KINDS = {
  McpProxy: { plural: 'mcpproxies', singular: 'mcpproxy', spec: mcpProxySpecSchema, shortNames: ['mcpp'] },
  LlmProxy: { plural: 'llmproxies', singular: 'llmproxy', spec: llmProxySpecSchema, shortNames: ['llmp'] },
  ApiKey: { plural: 'apikeys', singular: 'apikey', spec: apiKeySpecSchema, shortNames: ['tgkey'] },
  RuleSet: { plural: 'rulesets', singular: 'ruleset', spec: ruleSetSpecSchema, shortNames: ['tgrules'] },
} as const;
export type Kind = keyof typeof KINDS;
export const KIND_NAMES = Object.keys(KINDS) as Kind[];
