// Every published pricing table, oldest first. A new provider price is a new version file added here with a later
// effectiveFromMs: requests from that instant on use it, and rows already written keep the cost they were given.
import type { PricingTable } from './types.ts';
import { PRICING_2025_08_01 } from './versions/2025-08-01.ts';

export const PRICING_TABLES: readonly PricingTable[] = [PRICING_2025_08_01];
