// SSRF protection and DNS pinning. An upstream URL must be https (unless TOLLGATE_UPSTREAM_ALLOW_HTTP) and every
// address its hostname resolves to must be public (unless inside TOLLGATE_UPSTREAM_ALLOW_CIDRS). The address that
// passed is pinned: the gateway connects to that IP, with the original hostname for SNI and Host, so a later DNS
// answer cannot redirect traffic to an internal address (DNS rebinding).
import { lookup as dnsLookup } from 'node:dns/promises';
import { cidrContains, formatIp, parseIp, type Cidr } from './cidr.ts';
import { blockedRange } from './ip-ranges.ts';

export interface Pin {
  hostname: string;
  ip: string;
  port: number;
}

export type Lookup = (hostname: string) => Promise<string[]>;

export const systemLookup: Lookup = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export class UpstreamRejected extends Error {}

export interface UpstreamGuardOptions {
  allowCidrs: Cidr[];
  allowHttp: boolean;
  lookup?: Lookup;
}

export class UpstreamGuard {
  private readonly lookup: Lookup;

  constructor(private readonly opts: UpstreamGuardOptions) {
    this.lookup = opts.lookup ?? systemLookup;
  }

  /** Checks scheme and shape without DNS. Returns the parsed URL or throws UpstreamRejected with a user-safe reason. */
  checkUrl(raw: string): URL {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new UpstreamRejected('must be a valid URL');
    }
    if (u.protocol !== 'https:' && !(u.protocol === 'http:' && this.opts.allowHttp)) {
      throw new UpstreamRejected('must use https');
    }
    if (u.username || u.password) throw new UpstreamRejected('must not contain credentials');
    if (!u.hostname) throw new UpstreamRejected('must have a host');
    return u;
  }

  /** Why an address may not be an upstream, or undefined when it may. */
  addressProblem(ip: Uint8Array): string | undefined {
    if (this.opts.allowCidrs.some((c) => cidrContains(c, ip))) return undefined;
    const range = blockedRange(ip);
    return range ? `resolves to a ${range} address (${formatIp(ip)})` : undefined;
  }

  /** Resolves the URL's host, rejects it unless every address is allowed, and returns the pin. */
  async pin(raw: string): Promise<Pin> {
    const u = this.checkUrl(raw);
    const hostname = u.hostname.replace(/^\[|\]$/g, '');
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
    const literal = parseIp(hostname);
    let addresses: string[];
    if (literal) addresses = [hostname];
    else {
      try {
        addresses = await this.lookup(hostname);
      } catch {
        throw new UpstreamRejected(`host ${hostname} does not resolve`);
      }
    }
    if (!addresses.length) throw new UpstreamRejected(`host ${hostname} does not resolve`);
    for (const a of addresses) {
      const ip = parseIp(a);
      if (!ip) throw new UpstreamRejected(`host ${hostname} resolves to an unparseable address`);
      const problem = this.addressProblem(ip);
      if (problem) throw new UpstreamRejected(`host ${problem}`);
    }
    return { hostname, ip: formatIp(parseIp(addresses[0]!)!), port };
  }
}
