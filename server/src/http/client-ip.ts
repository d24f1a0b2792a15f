// The client address of a request, for the management API's audit records and the gateway's rules and events alike:
// the TCP peer, an IPv4-mapped IPv6 address shown as IPv4. Forwarded-for headers are not trusted (express's
// `trust proxy` is off and there is no trusted-proxy setting yet; docs/gateway.md).
import type { IncomingMessage } from 'node:http';

export function clientIp(req: IncomingMessage): string {
  const a = req.socket.remoteAddress ?? '';
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}
