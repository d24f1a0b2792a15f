// Bytes on a TCP socket, for requests no HTTP client would send (a CR inside a header value, ten thousand headers,
// Content-Length with Transfer-Encoding). Reads until the server closes the connection or a deadline passes.
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string[]>;
  body: string;
  /** Everything received, for assertions on what must not be there. */
  wire: string;
  ms: number;
}

export function rawExchange(base: string, bytes: string | Buffer, timeoutMs = 10_000): Promise<RawAnswer> {
  const url = new URL(base);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const wire = Buffer.concat(chunks).toString('latin1');
      const head = wire.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(wire.slice(0, head))?.[1];
      if (head >= 0 && length !== undefined && wire.length >= head + 4 + Number(length)) socket.end();
    });
    socket.on('error', (err) => { clearTimeout(timer); reject(err); });
    socket.on('close', () => {
      clearTimeout(timer);
      const wire = Buffer.concat(chunks).toString('latin1');
      const head = wire.indexOf('\r\n\r\n');
      const lines = wire.slice(0, head < 0 ? wire.length : head).split('\r\n');
      const headers: Record<string, string[]> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        if (i > 0) (headers[l.slice(0, i).toLowerCase()] ??= []).push(l.slice(i + 1).trim());
      }
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
      resolve({ status, headers, body: head < 0 ? '' : Buffer.from(wire.slice(head + 4), 'latin1').toString('utf8'), wire, ms: Date.now() - started });
    });
    socket.write(bytes);
  });
}
