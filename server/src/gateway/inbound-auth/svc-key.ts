// Mode svc_api_key: the Bearer token is a client key minted by Tollgate, found by its SHA-256 in the snapshot (no
// database query). The PAT is a management credential and never valid here (spec Authentication 9: 401).
import type { ClientCredential, ProxyConfig } from '../../snapshot/snapshot.ts';
import type { AuthOutcome } from './types.ts';
import { AuthMsg } from './messages.ts';

export function authenticateKey(
  proxy: ProxyConfig, credentials: ReadonlyMap<string, ClientCredential>, tokenHash: string | undefined,
): AuthOutcome {
  if (!tokenHash) return { ok: false, status: 401, message: AuthMsg.missing, reason: 'missing_credential' };
  const cred = credentials.get(tokenHash);
  if (!cred) return { ok: false, status: 401, message: AuthMsg.invalidKey, reason: 'unknown_key' };
  if (cred.isPat) return { ok: false, status: 401, message: AuthMsg.patOnProxy, reason: 'pat_on_proxy' };
  return {
    ok: true,
    identity: {
      mode: 'svc_api_key',
      credentialId: cred.credentialId,
      consumerId: cred.consumerId,
      // Keys are cross-checked against the owner's proxies when tags are written; a key of another user reaching
      // this proxy anyway (a hand-edited tag) gets no permissions at all.
      tags: cred.userId === proxy.userId ? cred.tags : [],
      consumerKey: cred.consumerId,
      apiKeyKey: cred.credentialId,
    },
  };
}

/** Pre-auth principal for ban checks (unverified: a ban can only deny). */
export function peekKey(credentials: ReadonlyMap<string, ClientCredential>, tokenHash: string | undefined) {
  const cred = tokenHash ? credentials.get(tokenHash) : undefined;
  return cred ? { consumerKey: cred.consumerId, apiKeyKey: cred.credentialId } : { apiKeyKey: tokenHash };
}
