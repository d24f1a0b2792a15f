// User-supplied patterns run on RE2 (linear time: no catastrophic backtracking can hang the gateway). PCRE
// constructs RE2 cannot run (backreferences, lookaround, possessive quantifiers) are rejected when rules are saved.
import RE2 from 're2';

export type UserRegex = InstanceType<typeof RE2>;

export function compileUserRegex(pattern: string, flags: string, extra = ''): { re?: UserRegex; error?: string } {
  if (pattern.length > 4096) return { error: 'pattern is longer than 4096 characters' };
  try {
    return { re: new RE2(pattern, `u${flags}${extra}`) };
  } catch (err) {
    return { error: `invalid or unsupported regular expression (RE2 syntax, no backreferences or lookaround): ${(err as Error).message}` };
  }
}

/** Expands $0..$9 in a replacement string with the groups of one match. */
export function expandReplacement(template: string, match: RegExpExecArray | string[]): string {
  return template.replace(/\$(\d)/g, (_, d: string) => match[Number(d)] ?? '');
}

/** Replaces every match of re (compiled with the g flag) in s; returns the new text and the match count. */
export function replaceAll(re: UserRegex, s: string, template: string): { text: string; count: number } {
  let count = 0;
  const text = s.replace(re as unknown as RegExp, (...args: unknown[]) => {
    count++;
    const groups = args.slice(0, -2).filter((a): a is string | undefined => typeof a === 'string' || a === undefined);
    return expandReplacement(template, groups.map((g) => g ?? ''));
  });
  return { text, count };
}
