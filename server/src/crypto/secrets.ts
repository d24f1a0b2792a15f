// Secrets at rest: AES-256-GCM envelopes "v1.<keyId>.<iv>.<tag>.<ciphertext>" (base64url parts). The key id is
// derived from the master key so that a wrong TOLLGATE_MASTER_KEY fails loudly instead of returning garbage.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** Data sealed with another master key than the configured one: the process refuses it, in one line at start. */
export class WrongMasterKey extends Error {
  constructor(readonly sealedWith: string, readonly configured: string) {
    super(`secret was sealed with key ${sealedWith}, not the configured master key ${configured}`);
  }
}

export class SecretBox {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('master key must be 32 bytes');
    this.keyId = createHash('sha256').update('tollgate-key-id').update(key).digest('base64url').slice(0, 8);
  }

  seal(plaintext: string | Buffer, aad = ''): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    if (aad) c.setAAD(Buffer.from(aad));
    const ct = Buffer.concat([c.update(plaintext), c.final()]);
    return ['v1', this.keyId, iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
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
