// IP addresses and CIDR ranges as 16-byte values (IPv4 is stored IPv4-mapped), so v4 and v6 share one matcher.

export interface Cidr {
  /** 16 bytes; IPv4 ranges are stored as ::ffff:a.b.c.d with the prefix shifted by 96. */
  bytes: Uint8Array;
  prefix: number;
  text: string;
}

function parseV4(s: string): Uint8Array | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(16);
  out[10] = 0xff;
  out[11] = 0xff;
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    // No leading zeros: "010" is 8 to inet_aton and 10 to a decimal reader; ambiguity is how filters get bypassed.
    if (!/^(0|[1-9]\d{0,2})$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out[12 + i] = n;
  }
  return out;
}

function parseV6(s: string): Uint8Array | undefined {
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  let tail: Uint8Array | undefined;
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    tail = parseV4(s.slice(lastColon + 1));
    if (!tail) return undefined;
    s = s.slice(0, lastColon + 1) + '0:0';
  }
  const groups = v6Groups(s);
  if (!groups) return undefined;
  if (!groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    const n = parseInt(g, 16);
    out[i * 2] = n >> 8;
    out[i * 2 + 1] = n & 0xff;
  });
  if (tail) out.set(tail.subarray(12), 12);
  return out;
}

/** The eight hex groups of an IPv6 address (a `::` expanded to zero groups); undefined if there are not eight. */
function v6Groups(s: string): string[] | undefined {
  if (s.split('::').length > 2) return undefined;
  const [head, rest] = s.includes('::') ? s.split('::') as [string, string] : [s, undefined];
  const h = head ? head.split(':') : [];
  const r = rest !== undefined ? (rest ? rest.split(':') : []) : [];
  // `::` stands for at least one zero group.
  if (rest !== undefined && h.length + r.length > 7) return undefined;
  const groups = rest !== undefined ? [...h, ...Array(8 - h.length - r.length).fill('0'), ...r] : h;
  return groups.length === 8 ? groups : undefined;
}

/** Parses an IPv4 or IPv6 address (brackets and zone ids allowed) into 16 bytes. */
export function parseIp(s: string): Uint8Array | undefined {
  s = s.trim();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  return s.includes(':') ? parseV6(s) : parseV4(s);
}

export function isV4Mapped(b: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/** Parses "10.0.0.0/8", "2001:db8::/32", or a bare address (/32 for v4, /128 for v6). */
export function parseCidr(s: string): Cidr | undefined {
  const text = s.trim();
  const slash = text.indexOf('/');
  const addr = slash < 0 ? text : text.slice(0, slash);
  const bytes = parseIp(addr);
  if (!bytes) return undefined;
  const v4 = !addr.includes(':');
  const max = v4 ? 32 : 128;
  let prefix = max;
  if (slash >= 0) {
    const p = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p) || Number(p) > max) return undefined;
    prefix = Number(p);
  }
  return { bytes, prefix: v4 ? prefix + 96 : prefix, text };
}

export function cidrContains(c: Cidr, ip: Uint8Array): boolean {
  let bits = c.prefix;
  for (let i = 0; i < 16 && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((c.bytes[i]! & mask) !== (ip[i]! & mask)) return false;
  }
  return true;
}

export function formatIp(b: Uint8Array): string {
  if (isV4Mapped(b)) return `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[i]! << 8) | b[i + 1]!);
  // RFC 5952: compress the longest run of two or more zero groups (the first one on a tie).
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  const hex = (g: number[]) => g.map((n) => n.toString(16)).join(':');
  if (best < 0) return hex(groups);
  return `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
}
