/**
 * A sorted list of terms held as one flat string and the starts of its terms (n + 1 of
 * them), so a sealed field keeps two objects instead of one string per term. V8 keeps a
 * Latin-1 string at one byte a character. Order is UTF-16 unit order, the order of JS `<`
 * and of the default `sort()`: comparisons read the blob with charCodeAt and slice a term
 * only when one is asked for.
 */
/** Terms whose places a table remembers at most: a search asks the same few, page after page. */
const REMEMBERED = 64;

export class TermTable {
  /** Places of terms looked up lately (the table never changes): no search of the blob. */
  private places = new Map<string, number>();

  constructor(readonly blob = "", readonly starts: Uint32Array = new Uint32Array(1)) {}

  /** Terms in sorted order (any order they are given in is kept: the caller sorts). */
  static from(terms: string[]): TermTable {
    const starts = new Uint32Array(terms.length + 1);
    let at = 0;
    for (let i = 0; i < terms.length; i++) starts[i + 1] = at += terms[i].length;
    // join makes one flat string (no slices or cons strings pinning the parts).
    return new TermTable(terms.join(""), starts);
  }

  /** Number of terms. */
  get length(): number {
    return this.starts.length - 1;
  }

  /** Term `i` as its own string. */
  at(i: number): string {
    return this.blob.slice(this.starts[i], this.starts[i + 1]);
  }

  /** Below 0, 0 or above 0 as term `i` sorts before, as or after `term`. */
  compare(i: number, term: string): number {
    const { blob } = this;
    const from = this.starts[i], len = this.starts[i + 1] - from;
    const n = len < term.length ? len : term.length;
    for (let k = 0; k < n; k++) {
      const d = blob.charCodeAt(from + k) - term.charCodeAt(k);
      if (d) return d;
    }
    return len - term.length;
  }

  /** Whether term `i` is `term`. */
  is(i: number, term: string): boolean {
    return this.starts[i + 1] - this.starts[i] === term.length && this.compare(i, term) === 0;
  }

  /** Whether term `i` starts with `prefix`. */
  startsWith(i: number, prefix: string): boolean {
    const from = this.starts[i];
    if (this.starts[i + 1] - from < prefix.length) return false;
    return this.blob.startsWith(prefix, from);
  }

  /** First index whose term is not below `term` (the length when none). */
  lowerBound(term: string): number {
    let lo = 0, hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(mid, term) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of `term`, or -1. */
  indexOf(term: string): number {
    let place = this.places.get(term);
    if (place === undefined) {
      const i = this.lowerBound(term);
      place = i < this.length && this.is(i, term) ? i : -1;
      if (this.places.size >= REMEMBERED) this.places.clear();
      this.places.set(term, place);
    }
    return place;
  }

  /** Whether starts run from 0 to the blob's end without going back and terms ascend strictly. */
  valid(): boolean {
    const { starts } = this, n = this.length;
    if (starts.length < 1 || starts[0] !== 0 || starts[n] !== this.blob.length) return false;
    for (let i = 0; i < n; i++) if (starts[i] > starts[i + 1]) return false;
    const { blob } = this;
    for (let i = 1; i < n; i++) {
      // Term i-1 against term i, in place: a prefix sorts first.
      const a = starts[i - 1], la = starts[i] - a, lb = starts[i + 1] - starts[i];
      let d = 0;
      for (let k = 0; k < la && k < lb && !d; k++) {
        d = blob.charCodeAt(a + k) - blob.charCodeAt(a + la + k);
      }
      if ((d || la - lb) >= 0) return false;
    }
    return true;
  }
}
