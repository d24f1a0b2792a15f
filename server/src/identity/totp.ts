// TOTP (RFC 6238 over RFC 4226 HOTP): HMAC-SHA-1, 6 digits, 30-second steps, accepted one step either side for
// clock drift. Pure functions on node:crypto; the caller keeps the last accepted step to refuse replays.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_S = 30;
export const TOTP_WINDOW = 1;
/** RFC 4226 recommends at least 128 bits; 160 bits matches the SHA-1 block authenticator apps expect. */
const SECRET_BYTES = 20;
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function newTotpSecret(): Buffer {
  return randomBytes(SECRET_BYTES);
}

/** RFC 4648 base32 without padding (what otpauth URIs and authenticator apps use). */
export function base32Encode(buf: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of buf) {
    value = ((value << 8) | byte) & 0xfff; // at most 12 live bits: 4 left over + 8 new
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.toUpperCase().replace(/[\s=]/g, '');
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const i = B32.indexOf(ch);
    if (i < 0) throw new Error('invalid base32 character');
    value = ((value << 5) | i) & 0xfff; // at most 12 live bits: 7 left over + 5 new
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 4226 §5.3: HMAC, dynamic truncation, modulo 10^digits, zero-padded. */
export function hotp(key: Buffer, counter: number, digits = TOTP_DIGITS): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(msg).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const bin = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(bin % 10 ** digits).padStart(digits, '0');
}

export function totpStep(unixS: number): number {
  return Math.floor(unixS / TOTP_PERIOD_S);
}

export function totpAt(key: Buffer, unixS: number, digits = TOTP_DIGITS): string {
  return hotp(key, totpStep(unixS), digits);
}

/**
 * The time step whose code equals `code` within ±TOTP_WINDOW steps of `unixS`, or undefined. Every candidate is
 * compared in constant time, so timing does not reveal which step (if any) matched.
 */
export function matchTotp(key: Buffer, code: string, unixS: number): number | undefined {
  const given = Buffer.from(code);
  const now = totpStep(unixS);
  let found: number | undefined;
  for (let step = now - TOTP_WINDOW; step <= now + TOTP_WINDOW; step++) {
    const want = Buffer.from(hotp(key, step));
    if (want.length === given.length && timingSafeEqual(want, given) && found === undefined) found = step;
  }
  return found;
}

/** Key URI format understood by authenticator apps (Google Authenticator's otpauth:// convention). */
export function otpauthUri(opts: { secretBase32: string; account: string; issuer: string }): string {
  const label = `${encodeURIComponent(opts.issuer)}:${encodeURIComponent(opts.account)}`;
  const q = new URLSearchParams({
    secret: opts.secretBase32, issuer: opts.issuer, algorithm: 'SHA1', digits: String(TOTP_DIGITS), period: String(TOTP_PERIOD_S),
  });
  return `otpauth://totp/${label}?${q.toString()}`;
}
