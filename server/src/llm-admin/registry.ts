// The LLM providers Tollgate proxies (docs/llm-gateway.md#providers-and-paths): their ids and public upstream bases.
// A deployment may point a provider elsewhere with TOLLGATE_PROVIDER_BASE_URL_<ID> (egress proxies, tests); API
// users never can.
import type { ProviderId } from '@tollgate/contract';
import type { Config } from '../config/config.ts';

export interface ProviderInfo {
  id: ProviderId;
  /** Public upstream base, no trailing slash. */
  defaultBaseUrl: string;
}

export const PROVIDERS: Readonly<Record<ProviderId, ProviderInfo>> = {
  openai: { id: 'openai', defaultBaseUrl: 'https://api.openai.com' },
  anthropic: { id: 'anthropic', defaultBaseUrl: 'https://api.anthropic.com' },
  gemini: { id: 'gemini', defaultBaseUrl: 'https://generativelanguage.googleapis.com' },
  mistral: { id: 'mistral', defaultBaseUrl: 'https://api.mistral.ai' },
};

/** The base URL the gateway forwards a provider's traffic to: the deployment override if set, else the public base. */
export function upstreamBaseUrl(config: Pick<Config, 'providerBaseUrls'>, provider: ProviderId): string {
  return config.providerBaseUrls[provider] ?? PROVIDERS[provider].defaultBaseUrl;
}

/** True when the deployment overrides the provider's base (operator configuration, trusted: see docs/security.md). */
export function isOverridden(config: Pick<Config, 'providerBaseUrls'>, provider: ProviderId): boolean {
  return config.providerBaseUrls[provider] !== undefined;
}
