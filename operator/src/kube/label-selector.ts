// A label selector in the string form the API server takes as `labelSelector` (kubectl -l): requirements joined by
// commas, each `key=value`, `key==value`, `key!=value`, `key in (v1,v2)`, `key notin (v1,v2)`, `key` or `!key`.
// The API server does the matching; this checks the syntax at start, so a typo stops the operator with one line
// instead of a list call refused at every retry.

const NAME = '[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?';
const PREFIX = '[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?';
const KEY = `(?:${PREFIX}/)?${NAME}`;
const VALUE = `(?:${NAME})?`;

const FORMS: RegExp[] = [
  new RegExp(`^!?${KEY}$`),
  new RegExp(`^${KEY}\\s*(?:==|!=|=)\\s*${VALUE}$`),
  new RegExp(`^${KEY}\\s+(?:in|notin)\\s*\\(\\s*${VALUE}(?:\\s*,\\s*${VALUE})*\\s*\\)$`),
];

export class LabelSelectorError extends Error {}

/** The requirements of a selector: split at the commas that are not inside `( )`. */
function requirements(selector: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  out.push(selector.slice(start));
  return out.map((r) => r.trim());
}

/** The selector, trimmed, when every requirement is well formed; else a LabelSelectorError naming the first bad one. */
export function parseLabelSelector(raw: string): string {
  const selector = raw.trim();
  if (!selector) throw new LabelSelectorError('is empty');
  for (const r of requirements(selector)) {
    if (!r) throw new LabelSelectorError(`has an empty requirement in ${JSON.stringify(selector)}`);
    if (!FORMS.some((f) => f.test(r))) {
      throw new LabelSelectorError(`${JSON.stringify(r)} is not a label selector requirement (key=value, key!=value, key in (a,b), key notin (a,b), key or !key)`);
    }
  }
  return selector;
}
