// Editing a consumer's tags (admin CLI): validation and the add/remove arithmetic, kept pure so it is easy to test.
// Quota tags hold one value each: adding `private:permissions:mcp:limit:20` replaces any other
// `private:permissions:mcp:limit:*` tag, because readers take the first match and two values would be ambiguous.
import { QUOTA_TAGS } from '@tollgate/contract';
import { CONSUMER_USER_TAG, PAT_TAG } from './users.ts';

export class InvalidTag extends Error {}

const QUOTA_PREFIXES: readonly string[] = Object.values(QUOTA_TAGS);
const PERMISSIONS_NS = 'private:permissions:';

function quotaPrefix(tag: string): string | undefined {
  return QUOTA_PREFIXES.find((p) => tag.startsWith(p));
}

export function validateConsumerTag(tag: string): void {
  if (!/^[\x21-\x7e]{1,200}$/.test(tag)) throw new InvalidTag(`"${tag}" is not a valid tag (printable ASCII without spaces, at most 200 characters)`);
  if (tag === PAT_TAG) throw new InvalidTag(`${PAT_TAG} marks a credential, not a consumer`);
  if (!tag.startsWith(PERMISSIONS_NS) || tag === CONSUMER_USER_TAG) return;
  const prefix = quotaPrefix(tag);
  if (!prefix) {
    throw new InvalidTag(`unknown permission tag "${tag}"; known: ${CONSUMER_USER_TAG}, ${QUOTA_PREFIXES.map((p) => `${p}N`).join(', ')}`);
  }
  if (!/^(0|[1-9][0-9]{0,8})$/.test(tag.slice(prefix.length))) throw new InvalidTag(`"${tag}": N must be a non-negative integer`);
}

/** Applies removals, then additions. Removing an absent tag is a no-op; the user marker cannot be removed. */
export function editConsumerTags(current: readonly string[], add: readonly string[], remove: readonly string[]): string[] {
  for (const t of [...add, ...remove]) validateConsumerTag(t);
  if (remove.includes(CONSUMER_USER_TAG)) throw new InvalidTag(`${CONSUMER_USER_TAG} marks the consumer record and cannot be removed`);
  let out = current.filter((t) => !remove.includes(t));
  for (const t of add) {
    const prefix = quotaPrefix(t);
    if (prefix) out = out.filter((x) => !x.startsWith(prefix));
    if (!out.includes(t)) out.push(t);
  }
  return out;
}
