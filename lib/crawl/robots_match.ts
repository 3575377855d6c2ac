/**
 * The rules of one robots.txt group compiled once, so that a check reads the path once rather
 * than once per rule (RFC 9309 2.2.2: the longest matching pattern wins, Allow wins a tie, "*"
 * matches any sequence, a final "$" anchors at the end).
 *
 * A pattern is cut at its stars: "/a*b*c$" is the literal prefix "/a", then the pieces "b" and "c"
 * in that order anywhere after it, "c" ending the path. Every prefix sits in one radix trie, so one
 * walk down the path finds each literal rule that matches and each wildcard rule whose prefix
 * does. Such a wildcard rule is then matched greedily, each piece at its earliest end after the
 * piece before (which leaves the most room for the rest), asking an index of the path where a
 * piece next ends, instead of scanning the path once per rule.
 *
 * Worst case of one check of a path of n characters: O(n) for the trie walk; then, only for the
 * wildcard rules whose prefix matched and that could still beat the best match so far, direct
 * searches up to a budget of O(n) compared characters in all, and past it one O(n log n) index of
 * the path, after which a piece costs O(piece length) the first time the check meets it and
 * O(log n) each time it is placed. That per-rule part does not grow with the path: it is at most
 * the total length of those rules times log n, plus clearing one slot per distinct piece when the
 * index is built, and the 500 KiB cap on the file bounds it all.
 */

/** One rule, its pattern already percent-normalized (so ASCII) with runs of "*" made one. */
export interface PathRule {
  allow: boolean;
  pattern: string;
}

/** The compiled rules of one group. */
export interface RuleMatcher {
  /** Whether the winning rule for a normalized path allows it; true when no rule matches. */
  allows(path: string): boolean;
}

interface WildcardRule {
  /** Longer patterns win, Allow wins a tie: 2 × pattern length, plus 1 for Allow. */
  rank: number;
  /** Ids of the pieces between the stars after the literal prefix; only the last can be "". */
  pieces: number[];
  /** Whether the last piece must end the path ("$"). */
  anchored: boolean;
}

/** The rules whose literal prefix (the pattern up to its first star) is one trie key. */
interface PrefixRules {
  /** Rank of the best star-free rule without "$" (matches any path the key starts), or -1. */
  prefix: number;
  /** Rank of the best star-free rule ending in "$" (matches only the key itself), or -1. */
  exact: number;
  /** Rules with a star, highest rank first. */
  wildcards: WildcardRule[];
}

/**
 * Compiles a group's rules; identical patterns collapse into one, Allow winning. In steps, a
 * rule each: a robots.txt of 500 KB holds ~20,000 rules (lib/slices.ts runs them).
 */
export function* compilingRules(rules: PathRule[]): Generator<void, RuleMatcher> {
  const allowOf = new Map<string, boolean>();
  for (const r of rules) allowOf.set(r.pattern, r.allow || (allowOf.get(r.pattern) ?? false));
  const trie = new PrefixTrie<PrefixRules>();
  // Each distinct piece is stored once under an id, so a check looks each one up once.
  const pieces: string[] = [];
  const ids = new Map<string, number>();
  const idOf = (piece: string) => {
    let id = ids.get(piece);
    if (id === undefined) ids.set(piece, id = pieces.push(piece) - 1);
    return id;
  };
  for (const [pattern, allow] of allowOf) {
    const rank = pattern.length * 2 + (allow ? 1 : 0);
    const anchored = pattern.endsWith("$");
    const [head, ...rest] = (anchored ? pattern.slice(0, -1) : pattern).split("*");
    const at = trie.insert(head);
    const entry = trie.values[at] ??= { prefix: -1, exact: -1, wildcards: [] };
    if (rest.length > 0) entry.wildcards.push({ rank, pieces: rest.map(idOf), anchored });
    else if (anchored) entry.exact = Math.max(entry.exact, rank);
    else entry.prefix = Math.max(entry.prefix, rank);
    yield;
  }
  for (const entry of trie.values) entry?.wildcards.sort((a, b) => b.rank - a.rank);

  return {
    allows(path: string): boolean {
      let best = -1;
      const candidates: { entry: PrefixRules; at: number }[] = [];
      trie.walk(path, (entry, depth) => {
        best = Math.max(best, entry.prefix, depth === path.length ? entry.exact : -1);
        if (entry.wildcards.length > 0) candidates.push({ entry, at: depth });
      });
      let finder: PieceFinder | null = null;
      for (const { entry, at } of candidates) {
        for (const rule of entry.wildcards) {
          // Sorted by rank: once one cannot beat the best, none after it in this entry can.
          if (rule.rank <= best) break;
          finder ??= new PieceFinder(path, pieces);
          if (matchesPieces(path, finder, rule, at)) {
            best = rule.rank;
            break;
          }
        }
      }
      return best < 0 || best % 2 === 1;
    },
  };
}

/** Whether a rule's pieces follow in order from `from`, each placed at its earliest end. */
function matchesPieces(
  path: string,
  finder: PieceFinder,
  rule: WildcardRule,
  from: number,
): boolean {
  let end = from;
  const last = rule.pieces.length - 1;
  for (let i = 0; i <= last; i++) {
    const id = rule.pieces[i];
    const piece = finder.pieces[id];
    if (i === last && rule.anchored) {
      return path.length - piece.length >= end && path.endsWith(piece);
    }
    if (piece === "") continue; // a trailing star: the rest of the path matches
    end = finder.firstEnd(id, end + piece.length);
    if (end < 0) return false;
  }
  return true;
}

/**
 * A radix trie over ASCII keys (normalized robots paths are ASCII), one node per key or branch,
 * so its size grows with the number of keys rather than their total length.
 */
class PrefixTrie<T> {
  // The characters on the edge into each node are source.slice(start, end), kept as offsets so
  // that splitting an edge copies nothing. Node 0 is the root, the empty key.
  private source: string[] = [""];
  private start: number[] = [0];
  private end: number[] = [0];
  /** Children, keyed node × 128 + the first character of the child's edge. */
  private children = new Map<number, number>();
  values: (T | undefined)[] = [undefined];

  /** The node for a key, created if new: O(key length). */
  insert(key: string): number {
    let node = 0;
    let i = 0;
    while (i < key.length) {
      const edge = node * 128 + key.charCodeAt(i);
      const child = this.children.get(edge);
      if (child === undefined) {
        const leaf = this.add(key, i, key.length);
        this.children.set(edge, leaf);
        return leaf;
      }
      const source = this.source[child];
      const from = this.start[child];
      const to = this.end[child];
      let j = 1;
      while (
        from + j < to && i + j < key.length && source.charCodeAt(from + j) === key.charCodeAt(i + j)
      ) j++;
      if (from + j < to) {
        // The key leaves (or ends inside) this edge: split it where they part.
        const mid = this.add(source, from, from + j);
        this.children.set(edge, mid);
        this.start[child] = from + j;
        this.children.set(mid * 128 + source.charCodeAt(from + j), child);
        node = mid;
      } else {
        node = child;
      }
      i += j;
    }
    return node;
  }

  /** Calls `visit` for every stored key that is a prefix of the path, shortest first: O(path). */
  walk(path: string, visit: (value: T, depth: number) => void): void {
    let node = 0;
    let depth = 0;
    for (;;) {
      const value = this.values[node];
      if (value !== undefined) visit(value, depth);
      if (depth === path.length) return;
      const child = this.children.get(node * 128 + path.charCodeAt(depth));
      if (child === undefined) return;
      const source = this.source[child];
      const to = this.end[child];
      if (depth + to - this.start[child] > path.length) return;
      for (let k = this.start[child]; k < to; k++) {
        if (source.charCodeAt(k) !== path.charCodeAt(depth++)) return;
      }
      node = child;
    }
  }

  private add(source: string, start: number, end: number): number {
    this.source.push(source);
    this.start.push(start);
    this.end.push(end);
    return this.values.push(undefined) - 1;
  }
}

const NONE = 0x7fffffff;

/**
 * Places pieces in one path. The first searches go straight to the path, which is all a usual
 * robots.txt needs; past a budget linear in the path, the path is indexed once and every further
 * piece is placed through the index.
 */
class PieceFinder {
  /** Characters direct searches may still compare, each counted at its worst case; a short path
   * still gets room for a few dozen. */
  private budget: number;
  private index: PathIndex | null = null;

  constructor(private path: string, readonly pieces: string[]) {
    this.budget = 16 * (path.length + 64);
  }

  /** The smallest end position >= minEnd of an occurrence of a non-empty piece, or -1. */
  firstEnd(id: number, minEnd: number): number {
    if (minEnd > this.path.length) return -1;
    const piece = this.pieces[id];
    const from = minEnd - piece.length;
    const cost = (this.path.length - from) * piece.length;
    if (this.index === null && cost <= this.budget) {
      this.budget -= cost;
      const at = this.path.indexOf(piece, from);
      return at < 0 ? -1 : at + piece.length;
    }
    this.index ??= new PathIndex(this.path, this.pieces);
    return this.index.firstEnd(id, minEnd);
  }
}

/**
 * Where the substrings of one path end. A suffix automaton of the path (O(n) states) finds the
 * state of a piece in O(piece length); the end positions of that piece are the prefix states in
 * the state's subtree of suffix links, one contiguous range once that tree is numbered depth
 * first. A persistent segment tree over that numbering, one version per lower bound, gives the
 * smallest end at or after a bound within the range in O(log n). Building it all is O(n log n).
 */
class PathIndex {
  private automaton: SuffixAutomaton;
  /** A state's subtree of suffix links is the numbers [first, after). */
  private first: Int32Array;
  private after: Int32Array;
  /** roots[e]: the tree version holding every end position >= e. */
  private roots: Int32Array;
  private left: Int32Array;
  private right: Int32Array;
  /** The smallest end position under each tree node. */
  private least: Int32Array;
  /** The automaton state of each piece: -1 when it is no substring, -2 until looked up. */
  private states: Int32Array;
  private ends = new Map<number, number>();

  constructor(private path: string, private pieces: string[]) {
    const n = path.length;
    this.states = new Int32Array(pieces.length).fill(-2);
    const sa = this.automaton = suffixAutomaton(path);
    const size = sa.len.length;

    // Parents in the suffix-link tree hold shorter strings, so visiting states by length visits
    // every parent before its children.
    const byLength = new Int32Array(size);
    const count = new Int32Array(n + 2);
    for (let s = 0; s < size; s++) count[sa.len[s] + 1]++;
    for (let l = 1; l < n + 2; l++) count[l] += count[l - 1];
    for (let s = 0; s < size; s++) byLength[count[sa.len[s]]++] = s;
    const subtree = new Int32Array(size).fill(1);
    for (let k = size - 1; k > 0; k--) subtree[sa.link[byLength[k]]] += subtree[byLength[k]];
    this.first = new Int32Array(size);
    this.after = new Int32Array(size);
    const nextFree = new Int32Array(size);
    this.after[0] = size;
    nextFree[0] = 1;
    for (let k = 1; k < size; k++) {
      const s = byLength[k];
      const at = nextFree[sa.link[s]];
      nextFree[sa.link[s]] += subtree[s];
      this.first[s] = at;
      this.after[s] = at + subtree[s];
      nextFree[s] = at + 1;
    }

    const levels = Math.ceil(Math.log2(size)) + 1;
    this.left = new Int32Array(n * levels + 1);
    this.right = new Int32Array(n * levels + 1);
    this.least = new Int32Array(n * levels + 1);
    this.least[0] = NONE; // node 0: the empty tree
    this.roots = new Int32Array(n + 2);
    let nodes = 1;
    // End positions go in from the last down: each is then the smallest so far, and so the least
    // of every node on its new path.
    for (let e = n; e >= 1; e--) {
      const at = this.first[sa.prefixState[e]];
      let old = this.roots[e + 1];
      let cur = this.roots[e] = nodes++;
      let lo = 0;
      let hi = size;
      for (;;) {
        this.least[cur] = e;
        if (hi - lo === 1) break;
        const mid = (lo + hi) >> 1;
        if (at < mid) {
          this.right[cur] = this.right[old];
          this.left[cur] = nodes;
          old = this.left[old];
          hi = mid;
        } else {
          this.left[cur] = this.left[old];
          this.right[cur] = nodes;
          old = this.right[old];
          lo = mid;
        }
        cur = nodes++;
      }
    }
  }

  /** The smallest end position >= minEnd (<= the path's length) of a non-empty piece, or -1. */
  firstEnd(id: number, minEnd: number): number {
    const n = this.path.length;
    const state = this.stateOf(id);
    if (state < 0) return -1;
    const key = state * (n + 1) + minEnd;
    let end = this.ends.get(key);
    if (end === undefined) {
      const size = this.first.length;
      const least = this.leastIn(this.roots[minEnd], 0, size, this.first[state], this.after[state]);
      end = least === NONE ? -1 : least;
      this.ends.set(key, end);
    }
    return end;
  }

  /** The automaton state whose strings include the piece, or -1 when it is no substring. */
  private stateOf(id: number): number {
    let state = this.states[id];
    if (state === -2) {
      const piece = this.pieces[id];
      state = 0;
      for (let i = 0; i < piece.length && state >= 0; i++) {
        state = this.automaton.next[state].get(piece.charCodeAt(i)) ?? -1;
      }
      this.states[id] = state;
    }
    return state;
  }

  private leastIn(node: number, lo: number, hi: number, from: number, to: number): number {
    if (node === 0 || to <= lo || hi <= from) return NONE;
    if (from <= lo && hi <= to) return this.least[node];
    const mid = (lo + hi) >> 1;
    return Math.min(
      this.leastIn(this.left[node], lo, mid, from, to),
      this.leastIn(this.right[node], mid, hi, from, to),
    );
  }
}

interface SuffixAutomaton {
  /** Transitions of each state by character code. */
  next: Map<number, number>[];
  /** Length of the longest string of each state. */
  len: Int32Array;
  /** Suffix link of each state (-1 for the initial state). */
  link: Int32Array;
  /** prefixState[e]: the state of path[0, e). */
  prefixState: Int32Array;
}

/** The suffix automaton of a string (Blumer et al.), built online in O(n) states and steps. */
function suffixAutomaton(text: string): SuffixAutomaton {
  const n = text.length;
  const next: Map<number, number>[] = [new Map()];
  const len = new Int32Array(2 * n + 1);
  const link = new Int32Array(2 * n + 1);
  const prefixState = new Int32Array(n + 1);
  link[0] = -1;
  let last = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    const cur = next.push(new Map()) - 1;
    len[cur] = len[last] + 1;
    let p = last;
    while (p !== -1 && !next[p].has(c)) {
      next[p].set(c, cur);
      p = link[p];
    }
    if (p === -1) {
      link[cur] = 0;
    } else {
      const q = next[p].get(c)!;
      if (len[p] + 1 === len[q]) {
        link[cur] = q;
      } else {
        const clone = next.push(new Map(next[q])) - 1;
        len[clone] = len[p] + 1;
        link[clone] = link[q];
        while (p !== -1 && next[p].get(c) === q) {
          next[p].set(c, clone);
          p = link[p];
        }
        link[q] = clone;
        link[cur] = clone;
      }
    }
    last = cur;
    prefixState[i + 1] = cur;
  }
  return { next, len: len.slice(0, next.length), link: link.slice(0, next.length), prefixState };
}
