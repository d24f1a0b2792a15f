import { z } from 'zod';
import { parseCidr } from '../../cidr.ts';
import { commonFields, defineRule } from '../common.ts';

export const ipAclSchema = z.object({
  rule_type: z.literal('ip_acl'),
  ...commonFields,
  action: z.enum(['allow', 'deny']).describe('allow: only the listed addresses pass (default-deny); deny: the listed addresses are blocked.'),
  cidrs: z.array(z.string().refine((s) => parseCidr(s) !== undefined, 'must be an IPv4 or IPv6 address or CIDR')).min(1)
    .describe('Addresses or CIDRs; a bare address means /32 (v4) or /128 (v6).'),
}).describe('Allow or deny clients by IP address. The first matching ip_acl rule wins.');
export type IpAclRule = z.output<typeof ipAclSchema>;

export const definition = defineRule(ipAclSchema, ['mcp', 'llm']);
