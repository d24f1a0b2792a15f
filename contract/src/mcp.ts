// Request bodies of the MCP-server, synthetic-resource, JWKS-test and rules endpoints. These zod schemas validate
// the input (400 `<field>: <reason>`) and document it (OpenAPI, docs/mcp-servers.md).
import { z } from 'zod';
import { inboundAuthSchema } from './inbound-auth.ts';
import { MAX_LAMBDAS_PER_PROXY, MAX_RULES_PER_PROXY, ruleSchema } from './rules/registry.ts';
import { toolPinningSchema } from './tool-pinning.ts';

export * from './tool-pinning.ts';

/** A string field with short, user-facing messages for the usual mistakes. */
function text(max: number) {
  return z.string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`);
}

export const MAX_RESOURCE_CONTENT_CHARS = 4 * 1024 * 1024;

const mcpName = text(200).describe('Display name of the MCP server.');
const mcpUrl = text(2048).describe('Upstream MCP endpoint (Streamable HTTP). Must be https and resolve only to public addresses.');
const authType = z.enum(['none', 'bearer'], { error: 'must be none or bearer' })
  .describe('Upstream auth, from Tollgate to the MCP server: none, or a bearer token (authToken).');
const authToken = z.string({ error: 'must be a string' }).max(8192, 'must be at most 8192 characters')
  .describe('Write-only upstream bearer token; required if and only if authType is bearer. Encrypted at rest, never returned.');
const inboundAuth = inboundAuthSchema.nullable()
  .describe('Inbound auth, from clients to the proxy; null means client API keys (svc_api_key).');

export const mcpCreateSchema = z.object({
  name: mcpName,
  url: mcpUrl,
  authType: authType.default('none'),
  authToken: authToken.nullable().optional(),
  auth: inboundAuth.optional(),
  toolPinning: toolPinningSchema.default('off'),
}).describe('A new MCP server proxy.');

export const mcpPatchSchema = z.object({
  name: mcpName.optional(),
  url: mcpUrl.optional(),
  authType: authType.optional(),
  authToken: authToken.nullable().optional(),
  auth: inboundAuth.optional(),
  toolPinning: toolPinningSchema.optional(),
}).describe('Any subset of the MCP server fields; omitted fields keep their value.');

export type McpCreateInput = z.output<typeof mcpCreateSchema>;
export type McpPatchInput = z.output<typeof mcpPatchSchema>;

const resourceUri = text(2048).describe('URI served by resources/list and resources/read; unique within the MCP server.');
const resourceName = text(256).describe('Resource name.');
const resourceDescription = z.string({ error: 'must be a string' }).max(4096, 'must be at most 4096 characters').describe('Optional description.');
const mimeType = z.string({ error: 'must be a string' })
  .regex(/^[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]*\/[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]*(\s*;.*)?$/, 'must be a MIME type such as text/plain')
  .max(255, 'must be at most 255 characters')
  .describe('MIME type of the content; default text/plain.');
const content = z.string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
  .max(MAX_RESOURCE_CONTENT_CHARS, `must be at most ${MAX_RESOURCE_CONTENT_CHARS} characters`)
  .describe('The payload served to clients; returned by the single-resource forms (POST, GET, PATCH), never by listings.');

export const resourceCreateSchema = z.object({
  uri: resourceUri,
  name: resourceName,
  description: resourceDescription.nullable().optional(),
  mimeType: mimeType.default('text/plain'),
  content,
}).describe('A synthetic static resource served by the proxy without contacting the upstream.');

export const resourcePatchSchema = z.object({
  uri: resourceUri.optional(),
  name: resourceName.optional(),
  description: resourceDescription.nullable().optional(),
  mimeType: mimeType.optional(),
  content: content.optional(),
}).describe('Any subset of the resource fields; a null description clears it.');

export type ResourceCreateInput = z.output<typeof resourceCreateSchema>;
export type ResourcePatchInput = z.output<typeof resourcePatchSchema>;

export const jwksTestSchema = z.object({
  jwksJson: z.string().describe('A JWKS document, JSON-encoded as a string.'),
}).describe('A JWKS to check the way a jwt-mode auth object is checked on save.');

export const rulesPutSchema = z.object({
  rules: z.array(ruleSchema).max(MAX_RULES_PER_PROXY, `must hold at most ${MAX_RULES_PER_PROXY} rules`)
    .describe(`The whole ordered rule array; it replaces the stored one atomically. At most ${MAX_RULES_PER_PROXY} rules, of which at most ${MAX_LAMBDAS_PER_PROXY} lambda rules, per proxy.`),
}).describe('Firewall rules of a proxy.');
