// The client address a rule sees: the TCP peer of the gateway connection, IPv4-mapped IPv6 shown as IPv4.
// Forwarded-for headers are not trusted (there is no trusted-proxy setting yet; docs/gateway.md).
import type { IncomingMessage } from 'node:http';

export function clientIp(req: IncomingMessage): string {
  const a = req.socket.remoteAddress ?? '';
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}
