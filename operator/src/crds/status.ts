// The status schema of each kind (docs/kubernetes.md#the-kinds): the common observedGeneration and conditions
// (Ready, Synced), and what each kind reports of its remote object. Only the operator writes status, through the
// status subresource.
import type { Kind } from '../kinds/specs.ts';
import type { JsonSchema } from './structural.ts';

/** The operator reports at most this many discovered tools of an McpProxy (a status must fit in etcd too). */
export const MAX_STATUS_TOOLS = 1000;
export const CONDITION_TYPES = ['Ready', 'Synced'] as const;

/** A condition as metav1.Condition has it, so kubectl wait --for=condition=Ready and the usual tools understand it. */
const condition: JsonSchema = {
  type: 'object',
  description: 'The latest observation of one aspect of the object\'s state.',
  properties: {
    type: { type: 'string', maxLength: 316, description: `The condition: ${CONDITION_TYPES.join(' or ')}.` },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'], description: 'True, False or Unknown.' },
    reason: {
      type: 'string', minLength: 1, maxLength: 1024, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
      description: 'A CamelCase reason for the last transition.',
    },
    message: { type: 'string', maxLength: 32768, description: 'What happened, for people.' },
    lastTransitionTime: { type: 'string', format: 'date-time', description: 'When status last changed.' },
    observedGeneration: { type: 'integer', format: 'int64', minimum: 0, description: 'The metadata.generation the condition was set for.' },
  },
  required: ['type', 'status', 'reason', 'message', 'lastTransitionTime'],
};

const common: Record<string, JsonSchema> = {
  observedGeneration: { type: 'integer', format: 'int64', minimum: 0, description: 'The metadata.generation the operator last acted on.' },
  conditions: {
    type: 'array',
    description: 'Ready: the remote object matches the spec. Synced: the last reconcile reached the management API.',
    maxItems: 8,
    items: condition,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
  },
};

const id: JsonSchema = { type: 'string', description: 'Id of the remote object in the management API.' };
const proxyHost: JsonSchema = { type: 'string', description: 'Host name the gateway serves the proxy at (<id>.<proxy domain>).' };
const secretVersion: JsonSchema = {
  type: 'string',
  description: 'The referenced Secret and its resourceVersion (<name>@<version>) when its value was last sent; the API never returns write-only values, so a new version is how a changed Secret is noticed.',
};

const OWN: Record<Kind, Record<string, JsonSchema>> = {
  McpProxy: {
    id,
    proxyHost,
    tools: {
      type: 'array', maxItems: MAX_STATUS_TOOLS, items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic',
      description: `Names of the tools discovered on the upstream (at most ${MAX_STATUS_TOOLS}).`,
    },
    secretVersion,
    discoveredFor: {
      type: 'string',
      description: 'The upstream (url, auth type, token Secret version) the tools were last discovered for; discovery runs again until it matches.',
    },
  },
  LlmProxy: { id, proxyHost, secretVersion },
  ApiKey: {
    id,
    maskedKey: { type: 'string', description: 'The key as the management API shows it: its first 6 characters, ..., 4 hex digits of its hash.' },
    secretName: { type: 'string', description: 'The Secret that holds the plaintext key under "key"; empty while there is none (an adopted key before its first rotation, a key deleted because its grant was revoked).' },
    connection: {
      type: 'string',
      description: 'The connection Secret (<namespace>/<name>) the remote key was created through: the key\'s own, or that of the shared proxies it references. Cleanup goes through it.',
    },
    rotation: { type: 'string', description: 'The value of the tollgate.dev/rotate annotation the key was last rotated for.' },
    budgetProxyIds: {
      type: 'array', maxItems: 100, items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic',
      description: 'LLM proxies on which the operator set a per-key budget (removed there when the spec drops it).',
    },
  },
  RuleSet: {
    proxyId: { type: 'string', description: 'Id of the target proxy in the management API.' },
    ruleCount: { type: 'integer', format: 'int32', minimum: 0, description: 'How many rules of this set the proxy holds.' },
  },
};

export function statusSchema(kind: Kind): JsonSchema {
  return { type: 'object', description: 'Observed state, written by the operator.', properties: { ...common, ...OWN[kind] } };
}
