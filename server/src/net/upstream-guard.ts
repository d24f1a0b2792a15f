// SSRF protection and DNS pinning. An upstream URL must be https (unless TOLLGATE_UPSTREAM_ALLOW_HTTP) and every
// address its hostname resolves to must be public (unless inside TOLLGATE_UPSTREAM_ALLOW_CIDRS). The address that
// passed is pinned: the gateway connects to that IP, with the original hostname for SNI and Host, so a later DNS
// answer cannot redirect traffic to an internal address (DNS rebinding).
import { lookup as dnsLookup } from 'node:dns/promises';
import { cidrContains, formatIp, parseIp, type Cidr } from '@tollgate/contract';
import { blockedRange } from './ip-ranges.ts';

export interface Pin {
  hostname: string;
  ip: string;
  port: number;
}

export type Lookup = (hostname: string) => Promise<string[]>;

export const systemLookup: Lookup = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** Why a URL was refused: callers tell a transient DNS failure (`unresolvable`) from a hostile answer. */
export type RejectionCode = 'invalid_url' | 'scheme' | 'credentials' | 'port' | 'unresolvable' | 'blocked_address';

export class UpstreamRejected extends Error {
  constructor(message: string, readonly code: RejectionCode = 'invalid_url') {
    super(message);
  }
}

export interface UpstreamGuardOptions {
  allowCidrs: Cidr[];
  allowHttp: boolean;
  lookup?: Lookup;
  /** A lookup that takes longer fails as `unresolvable` (a hung resolver must not hang a request or a job). */
  lookupTimeoutMs?: number;
}

export interface PinOptions {
  /**
   * Operator configuration (a TOLLGATE_PROVIDER_BASE_URL_* override), not user input: http is allowed and the
   * address ranges are not checked. The host is still resolved and pinned.
   */
  trusted?: boolean;
  /** Keep this IP when the answer still contains it (round-robin DNS must not move the pin every refresh). */
  prefer?: string;
}

export class UpstreamGuard {
  private readonly lookup: Lookup;

  constructor(private readonly opts: UpstreamGuardOptions) {
    this.lookup = opts.lookup ?? systemLookup;
  }

  /** Checks scheme and shape without DNS. Returns the parsed URL or throws UpstreamRejected with a user-safe reason. */
  checkUrl(raw: string, trusted = false): URL {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new UpstreamRejected('must be a valid URL', 'invalid_url');
    }
    if (u.protocol !== 'https:' && !(u.protocol === 'http:' && (this.opts.allowHttp || trusted))) {
      throw new UpstreamRejected('must use https', 'scheme');
    }
    if (u.username || u.password) throw new UpstreamRejected('must not contain credentials', 'credentials');
    if (!u.hostname) throw new UpstreamRejected('must have a host', 'invalid_url');
    if (u.port === '0') throw new UpstreamRejected('must not use port 0', 'port');
    return u;
  }

  /** Why an address may not be an upstream, or undefined when it may. */
  addressProblem(ip: Uint8Array): string | undefined {
    if (this.opts.allowCidrs.some((c) => cidrContains(c, ip))) return undefined;
    const range = blockedRange(ip);
    if (!range) return undefined;
    const article = /^([aeio]|u(?!ni))/i.test(range) ? 'an' : 'a'; // an unspecified, a unique-local
    return `resolves to ${article} ${range} address (${formatIp(ip)})`;
  }

  /** Resolves the URL's host, rejects it unless every address is allowed, and returns the pin. */
  async pin(raw: string, opts: PinOptions = {}): Promise<Pin> {
    const u = this.checkUrl(raw, opts.trusted);
    const hostname = u.hostname.replace(/^\[|\]$/g, '');
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
    const literal = parseIp(hostname);
    const addresses = literal ? [hostname] : await this.resolve(hostname);
    const parsed: Uint8Array[] = [];
    for (const a of addresses) {
      const ip = parseIp(a);
      if (!ip) throw new UpstreamRejected(`host ${hostname} resolves to an unparseable address`, 'unresolvable');
      // Every address must pass: a client library may connect to any of them, and one private answer among
      // public ones is exactly how rebinding attacks hide.
      const problem = opts.trusted ? undefined : this.addressProblem(ip);
      if (problem) throw new UpstreamRejected(`host ${problem}`, 'blocked_address');
      parsed.push(ip);
    }
    const ips = parsed.map(formatIp);
    const preferred = opts.prefer ? parseIp(opts.prefer) : undefined;
    const ip = preferred && ips.includes(formatIp(preferred)) ? formatIp(preferred) : ips[0]!;
    return { hostname, ip, port };
  }

  private async resolve(hostname: string): Promise<string[]> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('lookup timed out')), this.opts.lookupTimeoutMs ?? 5000);
    });
    try {
      const addresses = await Promise.race([this.lookup(hostname), timeout]);
      if (!addresses.length) throw new Error('no addresses');
      return addresses;
    } catch {
      throw new UpstreamRejected(`host ${hostname} does not resolve`, 'unresolvable');
    } finally {
      clearTimeout(timer);
    }
  }
}
