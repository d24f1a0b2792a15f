// Secrets by reference: a value of a Secret in the object's namespace, with the Secret's resourceVersion (a change of
// the Secret is how the operator knows to send a write-only value again; the management API never returns them).
import type { KubeClient } from '../kube/client.ts';
import { paths, secretValue, type SecretObject } from '../kube/objects.ts';
import { failed, waiting, type Outcome } from './outcome.ts';

/** How status.secretVersion names what was sent: the Secret and its resourceVersion. */
export const secretVersionOf = (s: SecretObject) => `${s.metadata.name}@${s.metadata.resourceVersion ?? ''}`;

export type SecretRead = { ok: true; value: string; version: string } | { ok: false; outcome: Outcome };

export async function readSecretKey(kube: KubeClient, namespace: string, ref: { name: string; key: string }, what: string): Promise<SecretRead> {
  const r = await kube.get<SecretObject>(paths.secret(namespace, ref.name));
  if (!r.ok && r.status === 404) {
    return { ok: false, outcome: waiting('SecretMissing', `Secret ${ref.name} (${what}) does not exist yet`) };
  }
  if (!r.ok) return { ok: false, outcome: failed('SecretUnreadable', `reading Secret ${ref.name} (${what}) failed: ${r.message}`) };
  const value = secretValue(r.body, ref.key);
  if (value === undefined || value === '') {
    return { ok: false, outcome: waiting('SecretKeyMissing', `Secret ${ref.name} has no key ${ref.key} (${what})`) };
  }
  return { ok: true, value: value.trim(), version: secretVersionOf(r.body) };
}
