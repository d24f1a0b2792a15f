// A model listing through an LLM proxy (GET /v1/models, /v1beta/models): the provider's own list, fetched with the
// provider key, with only the models the caller may use (model-policy.ts: allowedModels and the key's tags), in the
// provider's shape (providers/<id> filterModelList). A list the gateway cannot read whole and filter is never
// relayed as it came: it would show every model of the account.
import type { UpstreamResponse } from '../../net/upstream-response.ts';
import type { ModelFilter, ProviderAdapter } from './providers/index.ts';
import { parseJson } from './providers/json.ts';

/**
 * The filtered listing as JSON text, or undefined when the upstream's answer is larger than `capBytes`, breaks off,
 * or is not the provider's listing shape.
 */
export async function filteredModelList(up: UpstreamResponse, adapter: ProviderAdapter, keep: ModelFilter, capBytes: number): Promise<string | undefined> {
  let raw: Buffer | undefined;
  try {
    raw = await up.readAll(capBytes);
  } catch {
    return undefined;
  }
  const body = raw === undefined ? undefined : parseJson(raw.toString('utf8'));
  const filtered = body === undefined ? undefined : adapter.filterModelList(body, keep);
  return filtered === undefined ? undefined : JSON.stringify(filtered);
}
