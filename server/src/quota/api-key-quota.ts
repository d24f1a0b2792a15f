// The per-user client-key quota (spec Limits: default 40, consumer tag `private:permissions:apikey:limit:N`; the
// PAT is not counted).
import { HttpError } from '../http/errors.ts';
import { DEFAULT_API_KEY_LIMIT, QUOTA_TAGS, tagLimit } from '@tollgate/contract';

export function apiKeyLimit(consumerTags: readonly string[]): number {
  return tagLimit(consumerTags, QUOTA_TAGS.apiKeyLimit) ?? DEFAULT_API_KEY_LIMIT;
}

/** Same wording as the MCP quota message, with the current count and the limit. */
export function apiKeyLimitMessage(count: number, limit: number): string {
  return `API key limit reached (${count}/${limit}). Contact an administrator to raise your quota.`;
}

/** Throws the spec's 403 when one more key would exceed the limit. */
export function checkApiKeyQuota(currentCount: number, consumerTags: readonly string[]): void {
  const limit = apiKeyLimit(consumerTags);
  if (currentCount >= limit) throw new HttpError(403, apiKeyLimitMessage(currentCount, limit));
}
