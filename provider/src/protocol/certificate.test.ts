import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { createPluginIdentity } from './certificate.ts';

test('the plugin certificate is a self-signed P-256 CA for localhost, usable by TLS servers and clients', () => {
  const identity = createPluginIdentity();
  const cert = new X509Certificate(identity.certificateDer);
  assert.equal(cert.subjectAltName, 'DNS:localhost');
  assert.equal(cert.ca, true);
  assert.ok(cert.verify(cert.publicKey), 'signature verifies with its own key');
  assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  assert.deepEqual(cert.keyUsage?.sort(), ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
  assert.ok(cert.checkPrivateKey(createPrivateKey(identity.privateKeyPem)));
  assert.ok(new Date(cert.validTo).getTime() > Date.now() + 300 * 24 * 3600_000);
  assert.equal(new X509Certificate(identity.certificatePem).fingerprint256, cert.fingerprint256);
});
