// How much of a user pattern is counted repetition, read from its structure. RE2 is linear in the input, but it
// compiles `x{n,m}` into m copies of x (plus one branch per optional copy), and once the copies that can be live at
// the same time no longer fit its DFA's memory it falls back to a simulation that steps every live copy on every
// input byte: measured on this project's RE2 build, `\d{1,800}x` scans a run of digits at ~0.1 µs per byte and
// `\d{1,1000}x` at ~20 µs per byte (20 s on 1 MB). The cliff follows the size of the expanded repetitions more than
// what they are made of: `\d{1,800}x` (1,599 instructions) stays fast, `\d{1,850}x` (1,699) and
// `(?:\d{1,30}){1,30}x` (1,799) do not; every pattern measured at or below 1,200 scanned under 40 ns per byte, on
// runs of one character and on mixed input alike.
//
// So the save-time check is this count, never a timing: a saved rule must not depend on how busy the host was at
// that second. The parser reads RE2 syntax as far as the count needs (groups, alternation, classes, escapes,
// quantifiers). It runs before RE2 sees the pattern (the contract has no engine), so it takes any string: it always
// advances and never throws, and leaves rejecting bad syntax to the server's RE2 check.

/** Counted repetitions may expand to at most this many instructions (the cliff is at ~1,650; see above). */
export const MAX_REPETITION_SIZE = 1200;

interface Node {
  /** Instructions this node compiles to (counted repetitions expanded). */
  size: number;
  /** Of which: instructions that come from expanding counted repetitions (the part the limit is about). */
  repeated: number;
}

const ATOM: Node = { size: 1, repeated: 0 };
const EMPTY: Node = { size: 0, repeated: 0 };
/**
 * A Unicode property class (`\pL`, `[\p{Greek}\d]`) compiles to a UTF-8 automaton of many instructions: measured,
 * `\pL{1,20}x` is already past the cliff and `\pL{1,10}x` is not. ASCII classes, `.` and plain ranges of code points
 * compile to a few instructions each, and count as one.
 */
const PROPERTY_CLASS: Node = { size: 100, repeated: 0 };

/** The instructions that the pattern's counted repetitions expand to (0 for a pattern without any). */
export function repetitionSize(pattern: string): number {
  return new Parser(pattern).parse().repeated;
}

class Parser {
  private i = 0;

  constructor(private readonly p: string) {}

  parse(): Node {
    const n = this.alternation();
    // An unbalanced ')' cannot compile in RE2; skip it rather than stop counting.
    while (this.i < this.p.length) {
      this.i++;
      const rest = this.alternation();
      n.size += rest.size;
      n.repeated += rest.repeated;
    }
    return n;
  }

  private alternation(): Node {
    const branches: Node[] = [this.sequence()];
    while (this.p[this.i] === '|') {
      this.i++;
      branches.push(this.sequence());
    }
    // One split instruction per extra branch.
    return {
      size: branches.reduce((s, b) => s + b.size, 0) + branches.length - 1,
      repeated: branches.reduce((s, b) => s + b.repeated, 0),
    };
  }

  private sequence(): Node {
    const out: Node = { size: 0, repeated: 0 };
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
      const n = this.quantified(this.atom());
      out.size += n.size;
      out.repeated += n.repeated;
    }
    return out;
  }

  private quantified(atom: Node): Node {
    let n = atom;
    for (;;) {
      const c = this.p[this.i];
      if (c === '*' || c === '+' || c === '?') {
        this.i++;
        n = { size: n.size + 1, repeated: n.repeated };
      } else if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i));
        if (!m) return n; // a literal '{' (RE2 reads `a{,3}` as text); atom() takes it next
        this.i += m[0].length;
        const min = Number(m[1]);
        const max = m[2] === undefined ? min : m[3] === '' ? undefined : Number(m[3]);
        // x{n} is n copies; x{n,} is n copies and a star; x{n,m} is m copies, the last m-n of them optional.
        const size = max === undefined ? (min + 1) * n.size + 1 : max * n.size + (max - min);
        n = { size, repeated: size };
      } else return n;
      if (this.p[this.i] === '?') this.i++; // lazy: same program size
    }
  }

  private atom(): Node {
    const c = this.p[this.i]!;
    if (c === '(') return this.group();
    if (c === '[') return this.charClass();
    if (c === '\\') return this.escape();
    this.i++;
    return ATOM;
  }

  private group(): Node {
    this.i++;
    if (this.p[this.i] === '?') {
      // (?flags) sets flags and matches nothing; (?flags:...), (?P<name>...), (?<name>...) group.
      const flags = /^\?[a-zA-Z-]*\)/.exec(this.p.slice(this.i));
      if (flags) {
        this.i += flags[0].length;
        return EMPTY;
      }
      const head = /^\?(?:P?<[^>]*>|[a-zA-Z-]*:)/.exec(this.p.slice(this.i));
      this.i += head ? head[0].length : 1;
    }
    const inner = this.alternation();
    if (this.p[this.i] === ')') this.i++;
    // Capture instructions are stepped over, never held in a DFA state: a group adds nothing to the count.
    return inner;
  }

  private charClass(): Node {
    this.i++;
    let property = false;
    if (this.p[this.i] === '^') this.i++;
    if (this.p[this.i] === ']') this.i++; // a leading ']' is a member
    while (this.i < this.p.length && this.p[this.i] !== ']') {
      if (this.p[this.i] === '\\') {
        property ||= this.p[this.i + 1] === 'p' || this.p[this.i + 1] === 'P';
        this.i += 2;
      } else if (this.p.startsWith('[:', this.i)) {
        const end = this.p.indexOf(':]', this.i + 2);
        this.i = end < 0 ? this.i + 1 : end + 2;
      } else this.i++;
    }
    this.i++;
    return property ? PROPERTY_CLASS : ATOM;
  }

  private escape(): Node {
    const rest = this.p.slice(this.i);
    // \Q...\E quotes literal text: one instruction per character.
    if (rest.startsWith('\\Q')) {
      const end = this.p.indexOf('\\E', this.i + 2);
      const stop = end < 0 ? this.p.length : end;
      const n = { size: stop - this.i - 2, repeated: 0 };
      this.i = end < 0 ? stop : end + 2;
      return n;
    }
    const m = /^\\(?:[pP](?:\{[^}]*\}|.)|x(?:\{[^}]*\}|[0-9a-fA-F]{0,2})|u(?:\{[^}]*\}|[0-9a-fA-F]{0,4})|c.|[0-7]{1,3}|[\s\S])/.exec(rest);
    this.i += m ? m[0].length : 1;
    return rest[1] === 'p' || rest[1] === 'P' ? PROPERTY_CLASS : ATOM;
  }
}
