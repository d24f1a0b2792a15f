// Address ranges that are never valid upstream targets (IANA special-purpose registries for IPv4 and IPv6).
import { cidrContains, isV4Mapped, parseCidr, type Cidr } from '@tollgate/contract';

const RANGES: Array<[string, string]> = [
  ['0.0.0.0/8', '"this network"'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignment'],
  ['192.0.2.0/24', 'documentation'],
  ['192.31.196.0/24', 'AS112'],
  ['192.52.193.0/24', 'AMT'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['192.175.48.0/24', 'AS112'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['255.255.255.255/32', 'broadcast'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b::/96', 'NAT64'],
  ['64:ff9b:1::/48', 'NAT64 local'],
  ['100::/64', 'discard-only'],
  ['2001::/23', 'IETF protocol assignment'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segment routing'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

const COMPILED: Array<[Cidr, string]> = RANGES.map(([c, why]) => [parseCidr(c)!, why]);

/** The name of the special range containing ip, or undefined for a public unicast address. */
export function blockedRange(ip: Uint8Array): string | undefined {
  // ::/96 (IPv4-compatible, deprecated) and ::ffff:0:0/96 carry v4 addresses: IPv4-mapped is judged as the v4
  // address it names (parsing already maps it), the deprecated form is rejected outright.
  const v4compat = ip.slice(0, 12).every((b) => b === 0) && !ip.slice(12).every((b) => b === 0) && !(ip[12] === 0 && ip[13] === 0 && ip[14] === 0 && ip[15] === 1);
  if (v4compat) return 'IPv4-compatible IPv6';
  for (const [c, why] of COMPILED) if (cidrContains(c, ip)) return why;
  if (!isV4Mapped(ip) && (ip[0]! & 0xe0) !== 0x20) return 'non-global-unicast IPv6';
  return undefined;
}
