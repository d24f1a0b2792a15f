// Requests node's HTTP parser refuses never reach a handler: a malformed request line or header (a bare CR in a
// value), headers over node's size limit, Content-Length together with Transfer-Encoding. Node answers them with an
// empty body; the rule that every error is `{ "error": <message> }` holds for them too, on the management API and on
// the gateway's proxy listener.
import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';

const ANSWERS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request headers too large'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Request body too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request timeout'],
};

/** A response already started on this socket must not be corrupted (node's own default handler checks the same). */
function responseStarted(socket: Socket): boolean {
  const res: unknown = Reflect.get(socket, '_httpMessage');
  return typeof res === 'object' && res !== null && Reflect.get(res, '_headerSent') === true;
}

export function answerParseErrorsInJson(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable || responseStarted(socket)) {
      socket.destroy();
      return;
    }
    const [status, error] = ANSWERS[err.code ?? ''] ?? [400, 'Bad request'];
    const body = JSON.stringify({ error });
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`);
  });
}
