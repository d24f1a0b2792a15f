// Recorded wire fixtures of each provider (gateway/llm/providers/<id>/fixtures/): read by the adapters' tests and replayed by
// the loopback upstream fakes of the end-to-end tests and the benchmark.
import { readFileSync } from 'node:fs';
import type { ProviderId } from '@tollgate/contract';
import { sseTap } from '@tollgate/server/src/gateway/llm/meter.ts';
import type { Endpoint, Json, ProviderAdapter } from '@tollgate/server/src/gateway/llm/providers/types.ts';

export function fixtureText(provider: ProviderId, name: string): string {
  return readFileSync(new URL(`../../server/src/gateway/llm/providers/${provider}/fixtures/${name}`, import.meta.url), 'utf8');
}

export function fixtureJson(provider: ProviderId, name: string): Json {
  return JSON.parse(fixtureText(provider, name)) as Json;
}

/** Feeds an SSE fixture to the adapter's stream reader in chunks of `chunkSize` bytes (1 = byte by byte), as the accounting tap does. */
export function readStream(adapter: ProviderAdapter, ep: Endpoint, wire: string, { chunkSize = 7, text = true }: { chunkSize?: number; text?: boolean } = {}) {
  const reader = adapter.streamReader(ep, { text });
  const tap = sseTap(reader, text, 1 << 20);
  const bytes = Buffer.from(wire);
  for (let i = 0; i < bytes.length; i += chunkSize) tap.push(bytes.subarray(i, i + chunkSize));
  tap.end();
  return reader;
}
