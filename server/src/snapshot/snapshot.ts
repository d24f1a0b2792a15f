// The versioned data-plane contract: everything a gateway needs to serve traffic, built from storage and held in
// memory. It knows nothing of HTTP handlers, CRDs or Terraform; gateway tests can build one by hand.
import type { Rule } from '@tollgate/contract';
import type { Pin } from '../net/upstream-guard.ts';
import type { ProviderId, ToolDefinition, ToolPinningMode } from '@tollgate/contract';

export interface InboundAuth {
  mode: 'svc_api_key' | 'jwt';
  issuer?: string;
  audience?: string;
  jwksJson?: string;
  clockSkewS: number;
}

export interface BudgetConfig {
  period: 'fixed' | 'daily' | 'weekly' | 'monthly';
  capUsd: number;
  hardBlock: boolean;
}

export interface McpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  /** SHA-256 of the canonical definition (gateway/mcp/pinning/definition.ts); absent in catalogs older than pinning. */
  fingerprint?: string;
}

/** A tool definition a gateway saw upstream that differs from the pinned catalog and nobody has approved yet. */
export interface PendingToolChange {
  tool: string;
  fingerprint: string;
  definition: ToolDefinition;
  detectedAt: number;
}

export interface SyntheticResource {
  id: string;
  uri: string;
  name: string;
  description: string | null;
  mimeType: string;
  content: string;
}

/** Limits from the owner's consumer tags (spec "Per-user quota tags"). */
export interface OwnerLimits {
  mcpMaxRespBodyKb: number;
  llmMaxRespBodyKb: number;
  /** Largest request body a client may send to one of the owner's MCP proxies (413 beyond). */
  mcpMaxReqBodyKb: number;
  /** Largest request body a client may send to one of the owner's LLM proxies (413 beyond). */
  llmMaxReqBodyKb: number;
}

interface ProxyBase {
  id: string;
  userId: string;
  name: string;
  upstreamUrl: string;
  pin: Pin | null;
  auth: InboundAuth;
  rules: Rule[];
  limits: OwnerLimits;
}

export interface McpProxyConfig extends ProxyBase {
  kind: 'mcp';
  /** Decrypted upstream bearer token (authType bearer). */
  upstreamToken: string | undefined;
  /** The pinned (approved) catalog. */
  tools: McpTool[];
  resources: SyntheticResource[];
  /** Tool pinning; a snapshot built by hand (unit tests) may leave it out, which means `off`. */
  toolPinning?: ToolPinningMode;
  /** Pending differences whose fingerprint is not the pinned one (approved rows are left out at load). */
  pendingToolChanges?: PendingToolChange[];
}

export interface LlmProxyConfig extends ProxyBase {
  kind: 'llm';
  provider: ProviderId;
  /** Decrypted provider key. */
  providerKey: string | undefined;
  allowedModels: string[];
  logConversations: boolean;
  budget: BudgetConfig | null;
  /** Per-key caps by credential id. */
  keyBudgets: Record<string, BudgetConfig>;
}

export type ProxyConfig = McpProxyConfig | LlmProxyConfig;

export interface ClientCredential {
  credentialId: string;
  consumerId: string;
  userId: string;
  tags: string[];
  isPat: boolean;
}

export interface Snapshot {
  version: number;
  proxies: Map<string, ProxyConfig>;
  /** Host route (`<id>.<proxy_domain>`) to proxy id. */
  hosts: Map<string, string>;
  /** Path route (`/<id>`) to proxy id. */
  paths: Map<string, string>;
  /** SHA-256 hex of a client key (or PAT) to the credential. */
  credentialsByHash: Map<string, ClientCredential>;
}

export const DEFAULT_MCP_MAX_RESP_BODY_KB = 512;
export const DEFAULT_LLM_MAX_RESP_BODY_KB = 2048;
/** Not in the spec: a JSON-RPC request with its arguments (the cap the gateway always had). */
export const DEFAULT_MCP_MAX_REQ_BODY_KB = 4 * 1024;
/** Not in the spec: prompts with inline images or documents (the cap the gateway always had). */
export const DEFAULT_LLM_MAX_REQ_BODY_KB = 32 * 1024;
export const DEFAULT_AUTH: InboundAuth = { mode: 'svc_api_key', clockSkewS: 30 };
