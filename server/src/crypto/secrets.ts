// Secrets at rest: AES-256-GCM envelopes "v1.<keyId>.<iv>.<tag>.<ciphertext>" (base64url parts). The key id is
// derived from the master key so that a wrong TOLLGATE_MASTER_KEY fails loudly instead of returning garbage.
import { createCipheriv, createDecipheriv, createHash, randomBytes, type CipherGCM } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Data sealed with another master key than the configured one: the process refuses it, in one line at start. */
export class WrongMasterKey extends Error {
  constructor(readonly sealedWith: string, readonly configured: string) {
    super(`secret was sealed with key ${sealedWith}, not the configured master key ${configured}`);
  }
}

/** The length of an envelope before its ciphertext: `v1.`, the key id, the IV and the tag, each with its dot. */
const ENVELOPE_HEAD = 'v1.'.length + 9 + 17 + 23;

export class SecretBox {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('master key must be 32 bytes');
    this.keyId = createHash('sha256').update('tollgate-key-id').update(key).digest('base64url').slice(0, 8);
  }

  seal(plaintext: string | Buffer, aad = ''): string {
    const { iv, c } = this.cipher(aad);
    const ct = Buffer.concat([c.update(plaintext), c.final()]);
    return this.envelope(iv, c, ct.toString('base64url'));
  }

  /**
   * `seal`'s envelope as ASCII bytes in a buffer from `alloc`, sealed a piece of about `pieceBytes` at a time with a
   * turn of the event loop between pieces, for texts large enough to hold requests back (a logged prompt can be tens
   * of MB). GCM's output is as long as its input, so the envelope's length is known before the first piece; its head
   * (key id, IV, tag) has a fixed length and is written once the tag is known. Each piece's ciphertext is base64url
   * encoded in runs of whole 3-byte groups, which concatenate to the encoding of the whole; the 0–2 bytes left over
   * go with the next piece.
   */
  async sealBytesInTurns(plaintext: string | Buffer, aad = '', pieceBytes = 64 * 1024, alloc: (n: number) => Buffer = Buffer.allocUnsafe): Promise<Buffer> {
    const size = typeof plaintext === 'string' ? Buffer.byteLength(plaintext) : plaintext.length;
    const { iv, c } = this.cipher(aad);
    const out = alloc(ENVELOPE_HEAD + Math.ceil((size * 4) / 3));
    let at = ENVELOPE_HEAD;
    let carry = Buffer.alloc(0);
    for (const piece of pieces(plaintext, pieceBytes)) {
      const ct = carry.length ? Buffer.concat([carry, c.update(piece)]) : c.update(piece);
      const whole = ct.length - (ct.length % 3);
      at += out.write(ct.toString('base64url', 0, whole), at, 'latin1');
      carry = Buffer.from(ct.subarray(whole));
      await nextTurn();
    }
    at += out.write(Buffer.concat([carry, c.final()]).toString('base64url'), at, 'latin1');
    out.write(this.envelope(iv, c, ''), 0, 'latin1');
    if (at !== out.length) throw new Error(`sealed ${at} of ${out.length} bytes`);
    return out;
  }

  private cipher(aad: string): { iv: Buffer; c: CipherGCM } {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    if (aad) c.setAAD(Buffer.from(aad));
    return { iv, c };
  }

  private envelope(iv: Buffer, c: CipherGCM, ciphertext: string): string {
    return ['v1', this.keyId, iv.toString('base64url'), c.getAuthTag().toString('base64url'), ciphertext].join('.');
  }

  openBuffer(envelope: string, aad = ''): Buffer {
    const [v, kid, iv, tag, ct] = envelope.split('.');
    if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('malformed secret envelope');
    if (kid !== this.keyId) throw new WrongMasterKey(kid ?? '', this.keyId);
    const d = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    if (aad) d.setAAD(Buffer.from(aad));
    d.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]);
  }

  open(envelope: string, aad = ''): string {
    return this.openBuffer(envelope, aad).toString('utf8');
  }
}

/**
 * `data` in pieces of `size` bytes, or of `size` UTF-16 units for a string. A piece never ends inside a surrogate
 * pair, which would encode as two replacement characters: it ends one unit earlier, or later if it would be empty.
 */
function* pieces(data: string | Buffer, size: number): Generator<string | Buffer> {
  for (let i = 0; i < data.length;) {
    let end = Math.min(i + size, data.length);
    if (typeof data === 'string') {
      if (end < data.length && isHighSurrogate(data.charCodeAt(end - 1))) end += end - 1 > i ? -1 : 1;
      yield data.slice(i, end);
    } else {
      yield data.subarray(i, end);
    }
    i = end;
  }
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
