// The go-plugin process contract: check the magic cookie terraform sets, serve gRPC over mutual TLS on a loopback
// port, and announce `1|6|tcp|127.0.0.1:<port>|grpc|<certificate>` as the one and only line on stdout.
import * as grpc from '@grpc/grpc-js';
import { createPluginIdentity } from './certificate.ts';

const magicCookieKey = 'TF_PLUGIN_MAGIC_COOKIE';
/** What terraform (go-plugin) sets in TF_PLUGIN_MAGIC_COOKIE for the plugins it starts. */
export const magicCookieValue = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';
const coreProtocolVersion = 1;
export const appProtocolVersion = 6;

/** Exits with a human message unless terraform (or OpenTofu) started this process. */
export function requireMagicCookie(env: NodeJS.ProcessEnv = process.env): void {
  if (env[magicCookieKey] === magicCookieValue) return;
  process.stderr.write(
    'This binary is a plugin. These are not meant to be executed directly.\n' +
    'Please execute the program that consumes these plugins, which will load any plugins automatically.\n',
  );
  process.exit(1);
}

/** Starts the server with TLS that requires terraform's client certificate; prints the handshake line. */
export async function listenAndAnnounce(server: grpc.Server, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const clientCert = env.PLUGIN_CLIENT_CERT;
  if (clientCert === undefined || clientCert === '') {
    throw new Error('PLUGIN_CLIENT_CERT is not set: this provider needs a terraform that supports AutoMTLS (0.15 or later)');
  }
  const identity = createPluginIdentity();
  const credentials = grpc.ServerCredentials.createSsl(
    Buffer.from(clientCert),
    [{ private_key: Buffer.from(identity.privateKeyPem), cert_chain: Buffer.from(identity.certificatePem) }],
    true,
  );
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', credentials, (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  const certificate = identity.certificateDer.toString('base64').replace(/=+$/, '');
  const line = `${coreProtocolVersion}|${appProtocolVersion}|tcp|127.0.0.1:${port}|grpc|${certificate}`;
  process.stdout.write(`${line}\n`);
  return line;
}
