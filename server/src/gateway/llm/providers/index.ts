// The provider adapters by id (docs/llm-gateway.md#providers-and-paths). Adding a provider is one folder and one line
// here.
import type { ProviderId } from '@tollgate/contract';
import { anthropic } from './anthropic/index.ts';
import { gemini } from './gemini/index.ts';
import { mistral } from './mistral/index.ts';
import { openai } from './openai/index.ts';
import type { ProviderAdapter } from './types.ts';

export const PROVIDER_ADAPTERS: Readonly<Record<ProviderId, ProviderAdapter>> = { openai, anthropic, gemini, mistral };

export type { ProviderAdapter, Endpoint, EndpointKind, Json, JsonObject, ModelFilter, RouteSpec, StreamReader, TextRole, TextVisitor } from './types.ts';
