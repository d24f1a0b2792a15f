// A provider registry on loopback, as `terraform init` and `tofu init` meet a real one: HTTPS with a certificate of a
// CA made for the run, a host name with a dot (registry.tollgate.test), service discovery at
// /.well-known/terraform.json, and the providers.v1 protocol serving the packages, SHA256SUMS, its signature and the
// signing key of a release directory (the layout of `node scripts/release.mjs --out DIR`).
//
// How the name reaches loopback without touching /etc/hosts or DNS: a small HTTP CONNECT proxy that the CLIs use
// through HTTPS_PROXY (Go's http.ProxyFromEnvironment, which both CLIs' registry clients honour). The proxy opens a
// tunnel for the registry's host only, to the HTTPS server, so the CLI still does service discovery, checks the
// certificate against the host name and downloads over TLS end to end; the CA reaches it through SSL_CERT_FILE.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REGISTRY_HOST = 'registry.tollgate.test';

export interface Registry {
  host: string;
  /** What a CLI needs in its environment to reach and trust the registry. */
  env: Record<string, string>;
  /** The paths asked for, in order (service discovery first). */
  requests: string[];
  close(): Promise<void>;
}

export interface RegistryOptions {
  releaseDir: string;
  host?: string;
  namespace?: string;
  /** Replaces a served file's bytes, the `shasum` answers following SHA256SUMS (the tests of what a CLI refuses). */
  tamper?: (file: string, bytes: Buffer) => Buffer;
}

interface Package { version: string; os: string; arch: string; filename: string }

/** The provider packages of a release directory: terraform-provider-<type>_<version>_<os>_<arch>.zip. */
export function releasePackages(releaseDir: string, type = 'tollgate'): Package[] {
  const re = new RegExp(`^terraform-provider-${type}_(\\d+\\.\\d+\\.\\d+[^_]*)_([a-z0-9]+)_([a-z0-9]+)\\.zip$`);
  return readdirSync(releaseDir).flatMap((filename) => {
    const m = re.exec(filename);
    return m ? [{ version: m[1]!, os: m[2]!, arch: m[3]!, filename }] : [];
  });
}

function openssl(args: string[]) {
  const r = spawnSync('openssl', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
}

/** A CA for this run and a certificate for the host signed by it. */
function makeCertificates(dir: string, host: string) {
  const f = (name: string) => join(dir, name);
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
    '-subj', '/CN=tollgate-test-registry-ca', '-keyout', f('ca.key'), '-out', f('ca.crt')]);
  openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${host}`,
    '-keyout', f('server.key'), '-out', f('server.csr')]);
  writeFileSync(f('san.ext'), `subjectAltName=DNS:${host}\nextendedKeyUsage=serverAuth\n`);
  openssl(['x509', '-req', '-in', f('server.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial',
    '-days', '2', '-extfile', f('san.ext'), '-out', f('server.crt')]);
  return { ca: f('ca.crt'), cert: readFileSync(f('server.crt')), key: readFileSync(f('server.key')) };
}

/**
 * The long key id of an armored OpenPGP public key, as the registry protocol reports it: the low 64 bits of the v4
 * fingerprint, SHA-1 over 0x99, the two-byte length and the body of the first (primary key) packet (RFC 4880 12.2).
 */
export function keyId(armored: string): string {
  const lines = armored.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim() === '') + 1;
  const base64 = lines.slice(start).filter((l) => l && !l.startsWith('=') && !l.startsWith('-----')).join('');
  const bytes = Buffer.from(base64, 'base64');
  const tagByte = bytes[0]!;
  let header: number;
  let length: number;
  if (tagByte & 0x40) { // new packet format
    const b1 = bytes[1]!;
    [header, length] = b1 < 192 ? [2, b1] : b1 < 224 ? [3, ((b1 - 192) << 8) + bytes[2]! + 192] : [6, bytes.readUInt32BE(2)];
  } else { // old format: the low two bits give the size of the length
    const size = [1, 2, 4][tagByte & 3]!;
    [header, length] = [1 + size, bytes.readUIntBE(1, size)];
  }
  const body = bytes.subarray(header, header + length);
  if (body[0] !== 4) throw new Error(`signing key: a version ${body[0]} key packet, expected 4`);
  const prefix = Buffer.from([0x99, length >> 8, length & 0xff]);
  return createHash('sha1').update(prefix).update(body).digest('hex').slice(-16).toUpperCase();
}

/** The package's line of the SHA256SUMS served: what a registry publishes as `shasum`. */
function publishedSum(sumsText: string, sums: string, filename: string): string {
  const line = sumsText.split('\n').find((l) => l.trim().endsWith(`  ${filename}`));
  if (!line) throw new Error(`${sums} has no line for ${filename}`);
  return line.split(/\s+/)[0]!;
}

interface Catalog { namespace: string; type: string; packages: Package[]; protocols: string[]; signingKey: string; keyId: string }

function readCatalog(releaseDir: string, namespace: string): Catalog {
  const type = 'tollgate';
  const packages = releasePackages(releaseDir, type);
  if (!packages.length) throw new Error(`${releaseDir} holds no terraform-provider-${type}_<version>_<os>_<arch>.zip`);
  const manifest = join(releaseDir, `terraform-provider-${type}_${packages[0]!.version}_manifest.json`);
  const protocols = existsSync(manifest)
    ? (JSON.parse(readFileSync(manifest, 'utf8')) as { metadata: { protocol_versions: string[] } }).metadata.protocol_versions
    : ['6.0'];
  const signingKey = readFileSync(join(releaseDir, 'signing-key.asc'), 'utf8');
  return { namespace, type, packages, protocols, signingKey, keyId: keyId(signingKey) };
}

type Json = Record<string, unknown>;

/** The providers.v1 answers: a JSON body, or undefined for a path that is not the protocol's. */
function protocolAnswer(path: string, catalog: Catalog, base: string, served: (file: string) => Buffer): { status: number; body: Json } | undefined {
  if (path === '/.well-known/terraform.json') return { status: 200, body: { 'providers.v1': '/v1/providers/' } };
  const prefix = `/v1/providers/${catalog.namespace}/${catalog.type}/`;
  if (!path.startsWith(prefix)) return undefined;
  const rest = path.slice(prefix.length).split('/');
  if (rest.length === 1 && rest[0] === 'versions') {
    const versions = [...new Set(catalog.packages.map((p) => p.version))].map((version) => ({
      version, protocols: catalog.protocols,
      platforms: catalog.packages.filter((p) => p.version === version).map(({ os, arch }) => ({ os, arch })),
    }));
    return { status: 200, body: { versions } };
  }
  const [version, download, os, arch] = rest;
  const pkg = catalog.packages.find((p) => p.version === version && p.os === os && p.arch === arch);
  if (rest.length !== 4 || download !== 'download') return undefined;
  if (!pkg) return { status: 404, body: { errors: ['Not Found'] } };
  const sums = `terraform-provider-${catalog.type}_${version}_SHA256SUMS`;
  return {
    status: 200,
    body: {
      protocols: catalog.protocols, os, arch, filename: pkg.filename,
      download_url: `${base}/files/${pkg.filename}`,
      shasums_url: `${base}/files/${sums}`,
      shasums_signature_url: `${base}/files/${sums}.sig`,
      shasum: publishedSum(served(sums).toString('utf8'), sums, pkg.filename),
      signing_keys: { gpg_public_keys: [{ key_id: catalog.keyId, ascii_armor: catalog.signingKey }] },
    },
  };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  for (const s of sockets) s.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

function track(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  return sockets;
}

/** The CONNECT proxy: a tunnel to the registry for its host, 403 for every other destination. */
function startProxy(host: string, registryPort: number) {
  const proxy = createHttpServer((_req, res) => { res.writeHead(405).end(); });
  proxy.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    if (req.url !== `${host}:443`) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(registryPort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  return proxy;
}

/** Starts the registry and its proxy; `env` is what a CLI needs to use it. */
export async function startRegistry(opts: RegistryOptions): Promise<Registry> {
  const host = opts.host ?? REGISTRY_HOST;
  const scratch = mkdtempSync(join(tmpdir(), 'tollgate-registry-'));
  const certs = makeCertificates(scratch, host);
  const catalog = readCatalog(opts.releaseDir, opts.namespace ?? 'tollgate');
  const base = `https://${host}`;
  const requests: string[] = [];
  const served = (file: string) => {
    const bytes = readFileSync(join(opts.releaseDir, file));
    return opts.tamper ? opts.tamper(file, bytes) : bytes;
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', base).pathname;
    requests.push(path);
    const answer = req.method === 'GET' ? protocolAnswer(path, catalog, base, served) : undefined;
    if (answer) {
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
      return;
    }
    const file = /^\/files\/([A-Za-z0-9._-]+)$/.exec(path)?.[1];
    if (req.method === 'GET' && file && existsSync(join(opts.releaseDir, file))) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(served(file));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: ['Not Found'] }));
  };

  const https = createHttpsServer({ cert: certs.cert, key: certs.key }, handle);
  const httpsSockets = track(https);
  const registryPort = await listen(https);
  const proxy = startProxy(host, registryPort);
  const proxySockets = track(proxy);
  const proxyPort = await listen(proxy);

  return {
    host,
    env: {
      SSL_CERT_FILE: certs.ca,
      HTTPS_PROXY: `http://127.0.0.1:${proxyPort}`,
      // Whatever honours the proxy variables, the provider's calls to Tollgate on loopback stay direct.
      NO_PROXY: '127.0.0.1,localhost',
    },
    requests,
    async close() {
      await closeServer(proxy, proxySockets);
      await closeServer(https, httpsSockets);
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
