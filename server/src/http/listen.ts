// Starting a listener: the API and the gateway's two listeners share it.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Listens on host:port and resolves with the URL of the address actually bound (the port the system chose for 0, an
 * IPv6 address in brackets); rejects when the listen fails (the port is taken, the address is not local).
 */
export function listen(server: Server, host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const a = server.address() as AddressInfo;
      resolve(`http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`);
    });
  });
}
