/**
 * A sorted list of terms held as their UTF-8 bytes in one array and the byte starts of its
 * terms (n + 1 of them), so a sealed field keeps two typed arrays instead of one string per
 * term. A snapshot's table is a view of the snapshot's own bytes: a loaded index keeps no
 * second copy of its terms as a string (V8 would keep one at two bytes a character as soon as
 * one term is beyond Latin-1). Order is UTF-16 unit order, the order of JS `<` and of the
 * default `sort()`: comparisons read the bytes as UTF-16 units and make a term's string only
 * when one is asked for.
 */
/** Terms whose places a table remembers at most: a search asks the same few, page after page. */
const REMEMBERED = 64;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Bytes a valid UTF-8 sequence takes after lead byte `b` (0: not a lead byte). */
const tailOf = (b: number) =>
  b < 0x80 ? 0 : b < 0xc2 ? -1 : b < 0xe0 ? 1 : b < 0xf0 ? 2 : b < 0xf5 ? 3 : -1;

export class TermTable {
  /** Places of terms looked up lately (the table never changes): no search of the bytes. */
  private places = new Map<string, number>();

  constructor(
    readonly bytes: Uint8Array = new Uint8Array(0),
    readonly starts: Uint32Array = new Uint32Array(1),
  ) {}

  /** Terms in sorted order (any order they are given in is kept: the caller sorts). */
  static from(terms: string[]): TermTable {
    const build = new TermTableBuilder();
    for (const t of terms) build.add(t);
    return build.finish();
  }

  /** Number of terms. */
  get length(): number {
    return this.starts.length - 1;
  }

  /** Term `i` as its own string. */
  at(i: number): string {
    const from = this.starts[i], to = this.starts[i + 1], b = this.bytes;
    // Most terms are short and ASCII: no decoder call for them.
    if (to - from <= 32) {
      let ascii = true;
      for (let k = from; k < to && ascii; k++) ascii = b[k] < 0x80;
      if (ascii) return String.fromCharCode.apply(null, b.subarray(from, to) as never);
    }
    return decoder.decode(b.subarray(from, to));
  }

  /**
   * Term `i` against `term` in UTF-16 unit order: below 0, 0 or above 0 as it sorts before,
   * as or after it; with `prefix`, 0 when term `i` starts with `term`.
   */
  private order(i: number, term: string, prefix: boolean): number {
    const b = this.bytes, end = this.starts[i + 1], n = term.length;
    let p = this.starts[i], k = 0, low = 0;
    for (;;) {
      if (k === n) return prefix || (p >= end && !low) ? 0 : 1;
      let u: number;
      if (low) {
        u = low;
        low = 0;
      } else {
        if (p >= end) return -1;
        const c = b[p];
        if (c < 0x80) u = c, p++;
        else if (c < 0xe0) u = ((c & 0x1f) << 6) | (b[p + 1] & 0x3f), p += 2;
        else if (c < 0xf0) {
          u = ((c & 0x0f) << 12) | ((b[p + 1] & 0x3f) << 6) | (b[p + 2] & 0x3f);
          p += 3;
        } else {
          // Beyond the BMP: two UTF-16 units, a high surrogate now and a low one next.
          const v = (((c & 0x07) << 18) | ((b[p + 1] & 0x3f) << 12) | ((b[p + 2] & 0x3f) << 6) |
            (b[p + 3] & 0x3f)) - 0x10000;
          u = 0xd800 + (v >> 10);
          low = 0xdc00 + (v & 0x3ff);
          p += 4;
        }
      }
      const d = u - term.charCodeAt(k++);
      if (d) return d;
    }
  }

  /** Below 0, 0 or above 0 as term `i` sorts before, as or after `term`. */
  compare(i: number, term: string): number {
    return this.order(i, term, false);
  }

  /** Whether term `i` is `term`. */
  is(i: number, term: string): boolean {
    return this.order(i, term, false) === 0;
  }

  /** Whether term `i` starts with `prefix`. */
  startsWith(i: number, prefix: string): boolean {
    return this.order(i, prefix, true) === 0;
  }

  /** First index whose term is not below `term` (the length when none). */
  lowerBound(term: string): number {
    let lo = 0, hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.order(mid, term, false) < 0) lo = mid + 1;
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

  /**
   * Whether starts run from 0 to the bytes' end without going back, every term is whole
   * UTF-8, and terms ascend strictly.
   */
  valid(): boolean {
    const { starts, bytes: b } = this, n = this.length;
    if (starts.length < 1 || starts[0] !== 0 || starts[n] !== b.length) return false;
    for (let i = 0; i < n; i++) {
      if (starts[i] > starts[i + 1]) return false;
      for (let p = starts[i]; p < starts[i + 1];) {
        const tail = tailOf(b[p]);
        if (tail < 0 || p + 1 + tail > starts[i + 1]) return false;
        for (let q = 1; q <= tail; q++) if ((b[p + q] & 0xc0) !== 0x80) return false;
        p += 1 + tail;
      }
    }
    for (let i = 1; i < n; i++) {
      if (!before(b, starts[i - 1], starts[i], starts[i + 1])) return false;
    }
    return true;
  }
}

/**
 * Whether the UTF-8 term at [a, b) sorts strictly before the one at [b, c) in UTF-16 order.
 * Byte order is code point order, which is UTF-16 order but for characters beyond the BMP
 * (four bytes, lead F0–F4), which UTF-16 puts before U+E000–U+FFFF (lead EE–EF).
 */
function before(bytes: Uint8Array, a: number, b: number, c: number): boolean {
  const la = b - a, lb = c - b;
  for (let k = 0; k < la && k < lb; k++) {
    const x = bytes[a + k], y = bytes[b + k];
    if (x === y) continue;
    // The first byte that differs: both are lead bytes, or continuations of one lead.
    if (x >= 0xf0 && y >= 0xee && y < 0xf0) return true;
    if (y >= 0xf0 && x >= 0xee && x < 0xf0) return false;
    return x < y;
  }
  return la < lb;
}

/** A table made term by term, in order: strings, or terms copied from another table's bytes. */
export class TermTableBuilder {
  private bytes = new Uint8Array(1024);
  private used = 0;
  private starts: number[] = [0];

  private room(n: number) {
    if (this.used + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.used + n));
    grown.set(this.bytes.subarray(0, this.used));
    this.bytes = grown;
  }

  /** Adds a term given as a string. */
  add(term: string) {
    // At most three UTF-8 bytes a UTF-16 unit (a surrogate pair's four for its two).
    this.room(term.length * 3);
    this.used += encoder.encodeInto(term, this.bytes.subarray(this.used)).written;
    this.starts.push(this.used);
  }

  /** Adds term `i` of `table` as it is held (no string made). */
  copy(table: TermTable, i: number) {
    const from = table.starts[i], to = table.starts[i + 1];
    this.room(to - from);
    this.bytes.set(table.bytes.subarray(from, to), this.used);
    this.used += to - from;
    this.starts.push(this.used);
  }

  /** The table, its bytes copied to their exact length. */
  finish(): TermTable {
    return new TermTable(this.bytes.slice(0, this.used), Uint32Array.from(this.starts));
  }
}
