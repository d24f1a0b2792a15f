// A client's request body, read whole and bounded, for both proxy kinds: the gateway needs it before anything is
// forwarded (MCP: the JSON-RPC messages; LLM: the model, the prompt and the rules), and a client must not make it
// buffer without limit. Three bounds hold whatever arrives (docs/gateway.md, "What a request may cost"):
//   - per request: the owner's request-body cap (413 beyond it);
//   - per process: every body held by the gateway, from its first byte until its answer is closed, draws on one byte
//     budget (BodyBudget); a body that does not fit is refused with 503 instead of growing the heap;
//   - per parse: JSON nesting depth and element count (jsonShapeProblem), checked on the bytes before JSON.parse.
// A refused body is not read: the answer goes out with `Connection: close` and the connection is cut shortly after.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError } from './reply.ts';

export const BODY_TOO_LARGE = 'Request body too large';
export const GATEWAY_BUSY = 'Gateway busy: too many request bodies are being processed; retry shortly';

/** How long a connection whose body the gateway will not read stays open after the answer (the client reads it). */
const UNREAD_LINGER_MS = 1000;

/**
 * The bytes of request bodies this process holds at once. One instance per gateway process; a reservation lasts
 * until the request's answer is closed, since the body (and what was parsed from it) lives that long.
 */
export class BodyBudget {
  private used = 0;

  constructor(readonly maxBytes: number) {}

  get inUse(): number {
    return this.used;
  }

  tryTake(n: number): boolean {
    if (this.used + n > this.maxBytes) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }
}

class BodyTooLarge extends Error {}
class BudgetExhausted extends Error {}

/**
 * For an answer given before (or instead of) reading the request body: the rest of the body is not read. The answer
 * says `Connection: close`; once it is written, the connection is ended and, after a short linger for the client
 * to read it, destroyed, whatever the client is still sending.
 */
export function closeUnread(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete || res.headersSent) return;
  res.setHeader('connection', 'close');
  res.once('finish', () => {
    const socket = req.socket;
    socket.end();
    setTimeout(() => socket.destroy(), UNREAD_LINGER_MS).unref();
  });
}

/**
 * The whole body, at most `max` bytes, reserved against `budget` as it arrives and given back when `res` closes.
 * Rejects with BodyTooLarge or BudgetExhausted, having stopped reading.
 */
function readBody(req: IncomingMessage, res: ServerResponse, max: number, budget: BodyBudget): Promise<Buffer> {
  // Plain events rather than an async iterator: this runs on every request with a body and the iterator machinery
  // costs more than the read itself.
  return new Promise((resolve, reject) => {
    let taken = 0;
    res.once('close', () => budget.give(taken));
    const take = (n: number): boolean => {
      if (!budget.tryTake(n)) return false;
      taken += n;
      return true;
    };
    const declared = Number(req.headers['content-length']);
    if (declared > max) return reject(new BodyTooLarge());
    // A declared length is reserved whole up front, so a body that cannot fit is refused before its first byte.
    if (declared > 0 && !take(declared)) return reject(new BudgetExhausted());
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (err: Error) => {
      chunks.length = 0;
      req.removeAllListeners('data');
      req.pause();
      reject(err);
    };
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) return stop(new BodyTooLarge());
      if (size > taken && !take(size - taken)) return stop(new BudgetExhausted());
      chunks.push(c);
    });
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.once('error', reject);
  });
}

/** Why a body was refused (the reason of the caller's deny event). */
export type BodyRefused = 'body_too_large' | 'gateway_busy';

/**
 * The body, or why it was refused once the client has been answered: 413 for a body over `max` bytes, 503
 * (Retry-After) when the process holds as many body bytes as it may. The caller records the refusal's event.
 */
export async function readBodyOr413(req: IncomingMessage, res: ServerResponse, max: number, budget: BodyBudget): Promise<Buffer | BodyRefused> {
  try {
    return await readBody(req, res, max, budget);
  } catch (err) {
    if (!(err instanceof BodyTooLarge) && !(err instanceof BudgetExhausted)) throw err;
    closeUnread(req, res);
    if (err instanceof BodyTooLarge) sendError(res, 413, BODY_TOO_LARGE);
    else sendError(res, 503, GATEWAY_BUSY, { 'retry-after': '1' });
    return err instanceof BodyTooLarge ? 'body_too_large' : 'gateway_busy';
  }
}

/** JSON nesting deeper than this is refused before parsing (the walks after the parse recurse). */
export const MAX_JSON_DEPTH = 64;
/** More JSON values than this in one body are refused before parsing (each costs heap once parsed). */
export const MAX_JSON_ELEMENTS = 1_000_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/**
 * Why these JSON bytes are too deep or too many to parse, or undefined. A scan of the bytes, outside strings: the
 * depth of `[`/`{`, and the values counted by their separators (a good upper bound: a value per comma, plus one per
 * container). Invalid JSON is left to JSON.parse, and a body that does not start as a JSON array or object (a
 * multipart upload) is not scanned.
 */
export function jsonShapeProblem(raw: Buffer, maxDepth = MAX_JSON_DEPTH, maxElements = MAX_JSON_ELEMENTS): string | undefined {
  const start = firstNonSpace(raw);
  if (raw[start] !== OPEN_BRACE && raw[start] !== OPEN_BRACKET) return undefined;
  return scanShape(raw, start, maxDepth, maxElements);
}

function scanShape(raw: Buffer, start: number, maxDepth: number, maxElements: number): string | undefined {
  let depth = 0;
  let elements = 0;
  for (let i = start; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === QUOTE) i = closingQuote(raw, i + 1);
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return `JSON nested deeper than ${maxDepth} levels`;
      if (++elements > maxElements) return `JSON with more than ${maxElements} values`;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
    else if (c === COMMA && ++elements > maxElements) return `JSON with more than ${maxElements} values`;
  }
  return undefined;
}

/** The index of the first byte that is not JSON whitespace (raw.length if none). */
function firstNonSpace(raw: Buffer): number {
  let i = 0;
  while (i < raw.length && (raw[i] === 0x20 || raw[i] === 0x0a || raw[i] === 0x0d || raw[i] === 0x09)) i++;
  return i;
}

/** The index of the quote that ends the string whose content starts at `from` (raw.length if it never ends). */
function closingQuote(raw: Buffer, from: number): number {
  for (let i = from; i < raw.length; i++) {
    const c = raw[i];
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return raw.length;
}
