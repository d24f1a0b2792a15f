// ip_acl: all enabled ip_acl rules of a proxy form one gate, evaluated before authentication. Among the rules that
// apply to the request's tools, in array order, the first one whose CIDRs contain the client address decides
// (allow passes, deny blocks). When none matches and at least one applicable rule is an allow list, the request is
// blocked (an allow list is default-deny); otherwise it passes. Blocks are 403 with event ip_blocked.
import { cidrContains, parseCidr, parseIp, type Cidr } from '@tollgate/contract';
import type { RuleEntry } from '../../pipeline/build.ts';
import { toolScope } from '../../pipeline/scope.ts';
import type { Exchange, RuleHandler, ToolScope, Verdict } from '../../pipeline/types.ts';
import type { IpAclRule } from '@tollgate/contract';

export const IP_BLOCKED_MESSAGE = 'Access denied by IP rule';

interface CompiledAcl {
  index: number;
  allow: boolean;
  cidrs: Cidr[];
  scope: ToolScope;
}

export function buildIpAcl(entries: RuleEntry<IpAclRule>[]): RuleHandler[] {
  if (!entries.length) return [];
  const acls: CompiledAcl[] = entries.map(({ rule, index }) => ({
    index, allow: rule.action === 'allow', scope: toolScope(rule.tools),
    cidrs: rule.cidrs.map((c) => parseCidr(c)).filter((c): c is Cidr => c !== undefined),
  }));
  const first = entries[0]!.index;
  const addresses = new AddressCache();
  return [{
    ruleType: 'ip_acl', index: first, ruleName: `ip_acl#${first}`,
    // The gate itself runs for every request; each rule's own scope is checked inside.
    scope: toolScope(['*']),
    needsTools: acls.some((a) => !a.scope.all),
    network: (x) => decide(acls, x, addresses.parse(x.clientIp)),
  }];
}

/**
 * Parsed client addresses, so that a client's requests parse its address once: parsing allocated a 16-byte array and
 * ran a split and a regex per request. Bounded: cleared when full, so a spread of addresses costs only re-parsing.
 */
class AddressCache {
  private readonly parsed = new Map<string, Uint8Array | undefined>();

  parse(address: string): Uint8Array | undefined {
    if (this.parsed.has(address)) return this.parsed.get(address);
    const ip = parseIp(address);
    if (this.parsed.size >= 4096) this.parsed.clear();
    this.parsed.set(address, ip);
    return ip;
  }
}

function decide(acls: CompiledAcl[], x: Exchange, ip: Uint8Array | undefined): Verdict {
  let sawAllow = false;
  for (const a of acls) {
    if (!a.scope.all && !a.scope.matches(x.facts.tools)) continue;
    if (ip && a.cidrs.some((c) => cidrContains(c, ip))) return a.allow ? { kind: 'continue' } : block(a.index, 'deny_listed');
    if (a.allow) sawAllow = true;
  }
  if (!sawAllow) return { kind: 'continue' };
  const lastAllow = acls.filter((a) => a.allow && (a.scope.all || a.scope.matches(x.facts.tools))).at(-1)!;
  return block(lastAllow.index, 'not_in_allow_list');
}

function block(index: number, reason: string): Verdict {
  return { kind: 'deny', status: 403, message: IP_BLOCKED_MESSAGE, event: { type: 'ip_blocked', ruleName: `ip_acl#${index}`, details: { reason } } };
}
