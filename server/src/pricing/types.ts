// The shape of a pricing table version. Prices are USD per million tokens, as the providers publish them.
import type { ProviderId } from '@tollgate/contract';

export interface ModelPrice {
  /** Uncached input (prompt) tokens. */
  input: number;
  /** Generated tokens (including reasoning tokens). */
  output: number;
  /** Input tokens served from the provider's prompt cache; defaults to `input` when the provider has no discount. */
  cachedInput?: number;
  /** Input tokens written to the provider's prompt cache; defaults to `input` (Anthropic: 1.25 x input, 5-minute TTL). */
  cacheWriteInput?: number;
  /** The same for a cache entry with a 1-hour TTL (Anthropic: 2 x input); defaults to `cacheWriteInput`. */
  cacheWrite1hInput?: number;
}

export interface PricingTable {
  /** Recorded on every usage row priced by this table (`pricingVersion`). */
  version: string;
  /** Requests that start at or after this instant (ms since the epoch) use this table. */
  effectiveFromMs: number;
  /**
   * Per provider, model name (or family prefix) to price. The entry `*` prices models the table does not know, so an
   * unknown model can never spend a budget for free; it is set to the provider's flagship price on purpose.
   */
  providers: Record<ProviderId, Record<string, ModelPrice>>;
}
