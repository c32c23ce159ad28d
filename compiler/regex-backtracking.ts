// Whether a `regex:` URL pattern can make a backtracking matcher take exponential time (issue 27): a quantifier
// whose body can match one text in two ways, as nested quantifiers `(a+)+`, `(x+x+)+` or overlapping
// alternatives `(a|a)*`, `(a|aa)+`. Build time only, never in push.js.
//
// The pattern becomes its position automaton (one state per character class, Glushkov's construction) in which
// an edge is kept once per way the expression makes it, since a backtracking matcher tries each way. Such a
// matcher takes exponential time exactly when the automaton is exponentially ambiguous: two different paths
// lead from a state back to it on the same text. In the automaton paired with itself that is a strongly
// connected component holding a state (q, q) together with a state (p, p'), p != p', or a doubled edge (Allauzen,
// Mohri and Rastogi, "General algorithms for testing the ambiguity of finite automata", 2008).
// Conservative: character sets are over-approximated where unsure, assertions and lookarounds count as empty
// (a lookaround's own body is checked on its own), and a bounded repeat {n,m} with m > 1 as an unbounded one.

type Ranges = Array<[number, number]>;

const MAX_CODE_UNIT = 0xffff;
const ALL: Ranges = [[0, MAX_CODE_UNIT]];
const DIGIT: Ranges = [[48, 57]];
const WORD: Ranges = [
  [48, 57],
  [65, 90],
  [95, 95],
  [97, 122],
];
const SPACE: Ranges = [
  [9, 13],
  [32, 32],
  [160, 160],
  [5760, 5760],
  [8192, 8202],
  [8232, 8233],
  [8239, 8239],
  [8287, 8287],
  [12288, 12288],
  [65279, 65279],
];
const LINE_TERMINATORS: Ranges = [
  [10, 10],
  [13, 13],
  [8232, 8233],
];

function complement(ranges: Ranges): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  let next = 0;
  for (const [low, high] of sorted) {
    if (low > next) out.push([next, low - 1]);
    next = Math.max(next, high + 1);
  }
  if (next <= MAX_CODE_UNIT) out.push([next, MAX_CODE_UNIT]);
  return out;
}

function overlaps(a: Ranges, b: Ranges): boolean {
  return a.some(([low, high]) => b.some(([otherLow, otherHigh]) => low <= otherHigh && otherLow <= high));
}

type Node =
  | { kind: 'chars'; ranges: Ranges }
  | { kind: 'empty' }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'alt'; options: Node[] }
  | { kind: 'repeat'; body: Node; loops: boolean; optional: boolean; text: string };

const single = (code: number): Ranges => [[code, code]];
const CONTROL_ESCAPES: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13 };
const CLASS_ESCAPES: Record<string, Ranges> = {
  d: DIGIT,
  D: complement(DIGIT),
  w: WORD,
  W: complement(WORD),
  s: SPACE,
  S: complement(SPACE),
};

/** A lenient parser of the syntax `new RegExp(source)` accepts (no flags, Annex B); the source is known valid. */
class Parser {
  private at = 0;
  /** Lookaround bodies: matched again at many positions, so checked as automata of their own. */
  readonly lookarounds: Node[] = [];
  /** Inside `(?i:...)` every class is taken as any character. */
  private caseless = 0;

  constructor(private readonly source: string) {}

  parse(): Node {
    return this.alternation();
  }

  private peek(offset = 0): string {
    return this.source[this.at + offset] ?? '';
  }

  private alternation(): Node {
    const options = [this.sequence()];
    while (this.peek() === '|') {
      this.at += 1;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'alt', options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.at < this.source.length && this.peek() !== '|' && this.peek() !== ')') {
      const start = this.at;
      const atom = this.atom();
      items.push(this.quantified(atom, start));
    }
    return { kind: 'seq', items };
  }

  private quantified(atom: Node, start: number): Node {
    let min: number;
    let max: number;
    const next = this.peek();
    if (next === '*' || next === '+' || next === '?') {
      this.at += 1;
      [min, max] = next === '*' ? [0, Infinity] : next === '+' ? [1, Infinity] : [0, 1];
    } else {
      const braces = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (!braces) return atom;
      this.at += braces[0].length;
      min = Number(braces[1]);
      max = braces[2] === undefined ? min : braces[3] ? Number(braces[3]) : Infinity;
    }
    if (this.peek() === '?') this.at += 1;
    if (max === 0) return { kind: 'empty' };
    return { kind: 'repeat', body: atom, loops: max > 1, optional: min === 0, text: this.source.slice(start, this.at) };
  }

  private chars(ranges: Ranges): Node {
    return { kind: 'chars', ranges: this.caseless > 0 ? ALL : ranges };
  }

  private atom(): Node {
    const char = this.peek();
    this.at += 1;
    if (char === '^' || char === '$') return { kind: 'empty' };
    if (char === '.') return this.chars(complement(LINE_TERMINATORS));
    if (char === '[') return this.chars(this.characterClass());
    if (char === '(') return this.group();
    if (char === '\\') {
      const next = this.peek();
      if (next === 'b' || next === 'B') {
        this.at += 1;
        return { kind: 'empty' };
      }
      return this.chars(this.escape(false));
    }
    return this.chars(single(char.charCodeAt(0)));
  }

  private group(): Node {
    let lookaround = false;
    let caseless = false;
    const modifiers = /^\?([a-z]*)(?:-([a-z]*))?:/.exec(this.source.slice(this.at));
    if (this.source.startsWith('?=', this.at) || this.source.startsWith('?!', this.at)) {
      lookaround = true;
      this.at += 2;
    } else if (this.source.startsWith('?<=', this.at) || this.source.startsWith('?<!', this.at)) {
      lookaround = true;
      this.at += 3;
    } else if (modifiers) {
      caseless = /i/.test(modifiers[0]);
      this.at += modifiers[0].length;
    } else if (this.source.startsWith('?<', this.at)) {
      this.at = this.source.indexOf('>', this.at) + 1;
    }
    if (caseless) this.caseless += 1;
    const body = this.alternation();
    if (caseless) this.caseless -= 1;
    this.at += 1; // ')'
    if (!lookaround) return body;
    this.lookarounds.push(body);
    return { kind: 'empty' };
  }

  /** One escape after `\` (the backslash consumed); inside a class `\b` is a backspace. */
  private escape(inClass: boolean): Ranges {
    const char = this.peek();
    this.at += 1;
    if (CLASS_ESCAPES[char]) return CLASS_ESCAPES[char];
    if (CONTROL_ESCAPES[char] !== undefined) return single(CONTROL_ESCAPES[char]);
    if (inClass && char === 'b') return single(8);
    if (/[0-9]/.test(char)) {
      // \0 or a legacy octal escape (backreferences are refused before this check): some code unit below 256
      this.at += /^[0-7]{0,2}/.exec(this.source.slice(this.at))![0].length;
      return [[0, 255]];
    }
    const hex = char === 'x' ? /^[0-9a-fA-F]{2}/ : char === 'u' ? /^[0-9a-fA-F]{4}/ : undefined;
    const digits = hex?.exec(this.source.slice(this.at))?.[0];
    if (digits) {
      this.at += digits.length;
      return single(parseInt(digits, 16));
    }
    if (char === 'c' && /[a-zA-Z]/.test(this.peek())) {
      this.at += 1;
      return single(this.source.charCodeAt(this.at - 1) % 32);
    }
    if (char === 'c') {
      this.at -= 1; // `\c` without a letter is a backslash, then `c`
      return single(92);
    }
    return single(char.charCodeAt(0));
  }

  private characterClass(): Ranges {
    const negated = this.peek() === '^';
    if (negated) this.at += 1;
    const ranges: Ranges = [];
    while (this.at < this.source.length && this.peek() !== ']') {
      const low = this.classAtom();
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== '') {
        this.at += 1;
        const high = this.classAtom();
        if (low.length === 1 && high.length === 1 && low[0]![0] === low[0]![1] && high[0]![0] === high[0]![1]) {
          ranges.push([low[0]![0], high[0]![0]]);
        } else {
          ranges.push(...low, ...high, [45, 45]);
        }
      } else {
        ranges.push(...low);
      }
    }
    this.at += 1; // ']'
    return negated ? complement(ranges) : ranges;
  }

  private classAtom(): Ranges {
    const char = this.peek();
    this.at += 1;
    return char === '\\' ? this.escape(true) : single(char.charCodeAt(0));
  }
}

/** Ways of doing a thing, counted up to 2: only "none", "one" and "more than one" matter here. */
const cap = (ways: number): number => Math.min(ways, 2);

type Ways = Map<number, number>;

function addWays(into: Ways, from: Ways, times = 1): void {
  if (times === 0) return;
  for (const [position, ways] of from) into.set(position, cap((into.get(position) ?? 0) + ways * times));
}

interface Fragment {
  first: Ways;
  last: Ways;
  /** Ways of matching the empty text. */
  empty: number;
}

class Automaton {
  readonly sets: Ranges[] = [];
  /** edges.get(p).get(q): ways of stepping from position p to position q. */
  readonly edges = new Map<number, Ways>();
  /** The loops around each position, outermost first, to name the quantifier at fault. */
  readonly loopsOf: Array<Array<{ text: string }>> = [];
  private readonly enclosing: Array<{ text: string }> = [];

  build(node: Node): void {
    this.fragment(node);
  }

  private connect(from: Ways, to: Ways): void {
    for (const [p, fromWays] of from) {
      let out = this.edges.get(p);
      if (!out) this.edges.set(p, (out = new Map()));
      for (const [q, toWays] of to) out.set(q, cap((out.get(q) ?? 0) + fromWays * toWays));
    }
  }

  private fragment(node: Node): Fragment {
    switch (node.kind) {
      case 'empty':
        return { first: new Map(), last: new Map(), empty: 1 };
      case 'chars': {
        const position = this.sets.push(node.ranges) - 1;
        this.loopsOf[position] = [...this.enclosing];
        return { first: new Map([[position, 1]]), last: new Map([[position, 1]]), empty: 0 };
      }
      case 'alt': {
        const result: Fragment = { first: new Map(), last: new Map(), empty: 0 };
        for (const option of node.options) {
          const part = this.fragment(option);
          addWays(result.first, part.first);
          addWays(result.last, part.last);
          result.empty = cap(result.empty + part.empty);
        }
        return result;
      }
      case 'seq': {
        const result: Fragment = { first: new Map(), last: new Map(), empty: 1 };
        for (const item of node.items) {
          const part = this.fragment(item);
          this.connect(result.last, part.first);
          addWays(result.first, part.first, result.empty);
          const last: Ways = new Map();
          addWays(last, part.last);
          addWays(last, result.last, part.empty);
          result.last = last;
          result.empty = cap(result.empty * part.empty);
        }
        return result;
      }
      case 'repeat': {
        if (node.loops) this.enclosing.push(node);
        const body = this.fragment(node.body);
        if (node.loops) {
          this.enclosing.pop();
          // a backtracking matcher ends an iteration that matched nothing, so only non-empty ones loop
          this.connect(body.last, body.first);
        }
        return { ...body, empty: node.optional ? cap(body.empty + 1) : body.empty };
      }
    }
  }

  /** The quantifier at fault when some text takes two paths around a cycle, or undefined. */
  exponentialAt(): string | undefined {
    const count = this.sets.length;
    const compatible = (p: number, q: number) => overlaps(this.sets[p]!, this.sets[q]!);
    const key = (p: number, q: number) => p * count + q;
    const successors = (node: number): Array<{ to: number; doubled: boolean }> => {
      const p = Math.floor(node / count);
      const q = node % count;
      const out: Array<{ to: number; doubled: boolean }> = [];
      for (const [pNext, pWays] of this.edges.get(p) ?? []) {
        for (const [qNext, qWays] of this.edges.get(q) ?? []) {
          if (!compatible(pNext, qNext)) continue;
          out.push({ to: key(pNext, qNext), doubled: p === q && pNext === qNext && pWays > 1 && qWays > 1 });
        }
      }
      return out;
    };
    for (const component of stronglyConnected(
      Array.from({ length: count }, (_, position) => key(position, position)),
      successors,
    )) {
      const members = new Set(component);
      const diagonal = component.some((node) => Math.floor(node / count) === node % count);
      if (!diagonal) continue;
      const split =
        component.some((node) => Math.floor(node / count) !== node % count) ||
        component.some((node) => successors(node).some((edge) => edge.doubled && members.has(edge.to)));
      if (!split) continue;
      return this.quantifierOver(component.map((node) => Math.floor(node / count)));
    }
    return undefined;
  }

  /** The outermost loop around every position of a cycle: the repetition that can go two ways. */
  private quantifierOver(positions: number[]): string {
    const [first, ...rest] = positions.map((position) => this.loopsOf[position] ?? []);
    return (first ?? []).find((loop) => rest.every((loops) => loops.includes(loop)))?.text ?? '';
  }
}

/** Tarjan's strongly connected components of the nodes reachable from `roots` (iterative: no deep recursion). */
function stronglyConnected(roots: number[], successors: (node: number) => Array<{ to: number }>): number[][] {
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;
  for (const root of roots) {
    if (index.has(root)) continue;
    const work: Array<{ node: number; next: number[] }> = [];
    const open = (node: number) => {
      index.set(node, counter);
      low.set(node, counter);
      counter += 1;
      stack.push(node);
      onStack.add(node);
      work.push({ node, next: successors(node).map((edge) => edge.to) });
    };
    open(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const to = frame.next.pop();
      if (to !== undefined) {
        if (!index.has(to)) open(to);
        else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: number[] = [];
        let member: number;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component);
      }
    }
  }
  return components;
}

/**
 * The part of a valid RegExp source (no flags) that can backtrack exponentially, e.g. `(x+x+)+` of
 * `^https://x/(x+x+)+y$`, or undefined when no text can make it do so.
 */
export function exponentialBacktracking(source: string): string | undefined {
  const parser = new Parser(source);
  const whole = parser.parse();
  for (const node of [whole, ...parser.lookarounds]) {
    const automaton = new Automaton();
    automaton.build(node);
    const fault = automaton.exponentialAt();
    if (fault !== undefined) return fault || source;
  }
  return undefined;
}
