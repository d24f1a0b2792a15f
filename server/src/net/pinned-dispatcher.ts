// An undici dispatcher that connects to the pinned IP while keeping the URL's hostname for TLS SNI, certificate
// checks and the Host header, so DNS can't be used to steer an upstream call elsewhere after the check.
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import type { Pin } from './upstream-guard.ts';

export interface PinnedAgentOptions {
  connectTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  connections?: number;
}

export function createPinnedAgent(pin: Pin, opts: PinnedAgentOptions = {}): Agent {
  const connector = buildConnector({ timeout: opts.connectTimeoutMs ?? 10_000 });
  return new Agent({
    keepAliveTimeout: opts.keepAliveTimeoutMs ?? 30_000,
    connections: opts.connections ?? 256,
    connect: (o, cb) => {
      // Only the configured host may be reached through this agent.
      if (o.hostname.replace(/^\[|\]$/g, '') !== pin.hostname) {
        cb(new Error(`pinned agent for ${pin.hostname} refused a connection to ${o.hostname}`), null);
        return;
      }
      // SNI carries a host name only (RFC 6066): for an IP-literal URL none is sent and the certificate is checked
      // against the address.
      const sni = o.protocol === 'https:' && !isIP(pin.hostname) ? pin.hostname : undefined;
      connector({ ...o, hostname: pin.ip, servername: sni }, cb);
    },
  });
}
