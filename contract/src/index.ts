// @tollgate/contract: every schema a client of Tollgate sees, in one package that depends on nothing but zod. The
// server validates with it, the OpenAPI document, the CRDs and the Terraform schema are generated from it, and the
// operator and the provider check input with it before anything reaches the server.
export * from './messages.ts';
export * from './cidr.ts';
export * from './tags.ts';
export * from './providers.ts';
export * from './inbound-auth.ts';
export * from './llm.ts';
export * from './mcp.ts';
export * from './keys.ts';
export * from './audit.ts';
export * from './session.ts';
export * from './rules/common.ts';
export * from './rules/regex-cost.ts';
export * from './rules/registry.ts';
export * from './rules/examples.ts';
export * from './rules/fields.ts';
export { ipAclSchema, type IpAclRule } from './rules/ip_acl/schema.ts';
export { lambdaSchema, type LambdaRule } from './rules/lambda/schema.ts';
export { mcpResourceSchema, type McpResourceRule } from './rules/mcp_resource/schema.ts';
export { modelRouteSchema, type ModelRouteRule } from './rules/model_route/schema.ts';
export { promptGuardSchema, type PromptGuardRule } from './rules/prompt_guard/schema.ts';
export { promptReplaceSchema, type PromptReplaceRule } from './rules/prompt_replace/schema.ts';
export { rateLimitSchema, type RateLimitRule } from './rules/rate_limit/schema.ts';
export { responseReplaceSchema, type ResponseReplaceRule } from './rules/response_replace/schema.ts';
export { staticCacheSchema, type StaticCacheRule } from './rules/static_cache/schema.ts';
export { toolDescriptionInjectSchema, type ToolDescriptionInjectRule } from './rules/tool_description_inject/schema.ts';
export { DETECTOR_IDS, type DetectorId } from './rules/prompt_guard/detector-ids.ts';
export * from './responses.ts';
export * from './api/client.ts';
export * from './api/routes.ts';
export * from './log.ts';
