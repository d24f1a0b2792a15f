// The plugin's TLS identity for go-plugin AutoMTLS: a fresh ECDSA P-256 key and a self-signed certificate for
// "localhost", valid as a CA and for both TLS client and server use (what terraform's plugin client checks). Built
// with node:crypto and a few DER helpers rather than an X.509 library, which would cost ~100 ms on every start of
// the provider process (terraform starts several per command).
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { bitString, boolean, explicit, octetString, oid, sequence, set, time, tlv, unsignedInteger, utf8String } from './der.ts';

export interface PluginIdentity {
  certificateDer: Buffer;
  certificatePem: string;
  privateKeyPem: string;
}

const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));

export function createPluginIdentity(now = new Date()): PluginIdentity {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const name = sequence(
    set(sequence(oid('2.5.4.10'), utf8String('Tollgate terraform provider'))),
    set(sequence(oid('2.5.4.3'), utf8String('localhost'))),
  );
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))), // X.509 v3
    unsignedInteger(Buffer.concat([Buffer.from([0x01]), randomBytes(15)])),
    ecdsaWithSha256,
    name,
    sequence(time(new Date(now.getTime() - 60_000)), time(new Date(now.getTime() + 365 * 24 * 3600_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...extensions())),
  );
  const signature = sign('sha256', tbs, privateKey); // DER-encoded ECDSA signature
  const certificateDer = sequence(tbs, ecdsaWithSha256, bitString(signature));
  return {
    certificateDer,
    certificatePem: pem('CERTIFICATE', certificateDer),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

function extensions(): Buffer[] {
  const extension = (id: string, critical: boolean, value: Buffer): Buffer =>
    sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));
  return [
    extension('2.5.29.19', true, sequence(boolean(true))), // basicConstraints: CA
    // keyUsage: digitalSignature (bit 0), keyEncipherment (2), keyAgreement (4), keyCertSign (5) → 0b10101100
    extension('2.5.29.15', true, bitString(Buffer.from([0b10101100]), 2)),
    extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'), oid('1.3.6.1.5.5.7.3.2'))), // serverAuth, clientAuth
    extension('2.5.29.17', false, sequence(tlv(0x82, Buffer.from('localhost')))), // subjectAltName DNS:localhost
  ];
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
