// A scrape of a gateway's GET /metrics (its admin listener) as `name{labels}` → value. Each scrape opens a new
// connection, so with `serve --workers N` consecutive scrapes can reach different workers of the shared admin port.
import assert from 'node:assert/strict';

export async function scrapeMetrics(adminUrl: string): Promise<Map<string, number>> {
  const r = await fetch(`${adminUrl}/metrics`, { headers: { connection: 'close' } });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const out = new Map<string, number>();
  for (const line of (await r.text()).split('\n')) {
    const m = /^([a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}
