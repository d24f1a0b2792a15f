// GET /api/health: probes the datastores and the gateway admin; reports only up/down and latency.
import type { Router } from '../../http/router.ts';
import type { Services } from '../../services.ts';

interface Probe {
  name: string;
  status: 'up' | 'down';
  latencyMs: number;
}

async function probe(name: string, fn: () => Promise<void>, timeoutMs = 2000): Promise<Probe> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([fn(), new Promise((_, rej) => { timer = setTimeout(() => rej(new Error('timeout')), timeoutMs); })]);
    return { name, status: 'up', latencyMs: Math.round((performance.now() - t0) * 100) / 100 };
  } catch {
    return { name, status: 'down', latencyMs: Math.round((performance.now() - t0) * 100) / 100 };
  } finally {
    clearTimeout(timer);
  }
}

export async function health(s: Services) {
  const probes: Array<Promise<Probe>> = [
    probe('database', () => s.db.ping()),
    probe(s.state.kind === 'redis' ? 'redis' : 'state', () => s.state.ping()),
  ];
  if (s.gatewayAdminUrl) {
    const url = `${s.gatewayAdminUrl}/status`;
    probes.push(probe('gateway', async () => {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await r.arrayBuffer();
      if (!r.ok) throw new Error(`status ${r.status}`);
    }));
  }
  const services = await Promise.all(probes);
  return { overall: services.every((p) => p.status === 'up') ? 'operational' : 'degraded', services };
}

export function registerHealthRoutes(r: Router, s: Services): void {
  r.add('GET', '/api/health', 'user', async () => health(s));
}
