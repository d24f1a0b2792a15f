// User-supplied patterns run on RE2 (linear time: no catastrophic backtracking can hang the gateway). PCRE
// constructs RE2 cannot run (backreferences, lookaround, possessive quantifiers) are rejected when rules are saved, and
// so are patterns whose structure makes RE2 slow (the contract's slowPatternReason, @tollgate/contract).
import RE2 from 're2';

export type UserRegex = RE2;

export function compileUserRegex(pattern: string, flags: string, extra = ''): { re?: UserRegex; error?: string } {
  if (pattern.length > 4096) return { error: 'pattern is longer than 4096 characters' };
  try {
    return { re: new RE2(pattern, `u${flags}${extra}`) };
  } catch (err) {
    return { error: `invalid or unsupported regular expression (RE2 syntax, no backreferences or lookaround): ${(err as Error).message}` };
  }
}

/** A replacement template split once into literal text and group numbers ($0..$9). */
type Template = Array<string | number>;
const templates = new Map<string, Template>();

function compileTemplate(template: string): Template {
  let t = templates.get(template);
  if (t) return t;
  t = [];
  let last = 0;
  for (const m of template.matchAll(/\$(\d)/g)) {
    if (m.index > last) t.push(template.slice(last, m.index));
    t.push(Number(m[1]));
    last = m.index + 2;
  }
  if (last < template.length) t.push(template.slice(last));
  // Templates come from rules, so the set is small; the bound only guards against endless rule churn.
  if (templates.size >= 1000) templates.clear();
  templates.set(template, t);
  return t;
}

/**
 * Replaces every match of re (compiled with the g flag) in s; returns the new text and the match count. Runs on
 * every string of every response and prompt a redaction rule covers, so a string without a match costs one RE2
 * exec, and the template is parsed once, not per match. Matches are walked with exec and lastIndex: RE2's replace
 * with a callback costs time in proportion to the whole input per match (quadratic: 200k matches took 6 s), which a
 * client could trigger with a long prompt.
 */
export function replaceAll(re: UserRegex, s: string, template: string): { text: string; count: number } {
  re.lastIndex = 0;
  let m = re.exec(s);
  if (m === null) {
    re.lastIndex = 0;
    return { text: s, count: 0 };
  }
  const parts = compileTemplate(template);
  let count = 0;
  let out = '';
  let last = 0;
  for (; m !== null; m = re.exec(s)) {
    count++;
    out += s.slice(last, m.index);
    for (const p of parts) {
      if (typeof p === 'string') out += p;
      else if (p < m.length && typeof m[p] === 'string') out += m[p];
    }
    last = m.index + m[0].length;
    // An empty match does not move lastIndex: step over one code point, as String.prototype.replace does.
    if (m[0].length === 0) re.lastIndex = last + (isHighSurrogate(s.charCodeAt(last)) ? 2 : 1);
    if (re.lastIndex > s.length) break;
  }
  re.lastIndex = 0;
  return { text: out + s.slice(last), count };
}

/** Scratch copies above this size are made one-off, so one huge string does not pin a huge buffer to the rule. */
const SCRATCH_MAX = 1 << 20;

/**
 * A compiled replacement rule (prompt_replace, response_replace): the pattern, global, with its template, and the
 * same pattern without the g flag as a probe. `apply` probes every string first, on a UTF-8 copy in a buffer the
 * rule reuses: node-re2 turns each new JS string it is given into a fresh Buffer held by a weak handle (about 2 µs a
 * call, whatever the length, plus the collector's work on the handle), while a Buffer costs it nothing. So a string
 * without a match (nearly every string of nearly every response) costs one cheap native test, and only a string
 * that matches pays for the conversion, once, in replaceAll.
 */
export class Replacer {
  private scratch = Buffer.allocUnsafe(4096);

  private constructor(private readonly global: UserRegex, private readonly probe: UserRegex, private readonly template: string) {}

  static compile(pattern: string, flags: string, template: string): { replacer?: Replacer; error?: string } {
    const g = compileUserRegex(pattern, flags, 'g');
    if (!g.re) return { error: g.error };
    return { replacer: new Replacer(g.re, compileUserRegex(pattern, flags).re!, template) };
  }

  /** Replaces every match in s; returns the new text and the match count. */
  apply(s: string): { text: string; count: number } {
    if (!this.probe.test(this.utf8(s))) return { text: s, count: 0 };
    return replaceAll(this.global, s, this.template);
  }

  private utf8(s: string): Buffer {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const max = s.length * 3;
    if (max > this.scratch.length) {
      if (max > SCRATCH_MAX) return Buffer.from(s, 'utf8');
      this.scratch = Buffer.allocUnsafe(Math.min(SCRATCH_MAX, Math.max(max, this.scratch.length * 2)));
    }
    return this.scratch.subarray(0, this.scratch.write(s, 0, 'utf8'));
  }
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
