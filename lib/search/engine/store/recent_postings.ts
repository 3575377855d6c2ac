/**
 * The recent part of a field's postings (field_postings.ts): what was added since the last
 * seal, as one log in typed arrays, chained per term.
 */
import { MAP_ENTRY_BYTES } from "./held_bytes.ts";

/** A copy of `a` at least `min` long (doubling). */
function grow(a: Uint32Array, min: number): Uint32Array {
  const out = new Uint32Array(Math.max(min, a.length * 2));
  out.set(a);
  return out;
}

/**
 * Postings added since the last seal: one log in typed arrays (id, tf, next entry of the
 * same term), chained per term, so a build makes no array per term. Entry 0 is unused.
 */
export class Recent {
  /** Term → its chain's number. */
  chains!: Map<string, number>;
  /** Per chain: its first and last entry, and its length. */
  first!: Uint32Array;
  last!: Uint32Array;
  count!: Uint32Array;
  /** Per entry. */
  ids!: Uint32Array;
  tfs!: Uint32Array;
  next!: Uint32Array;
  /** Entries used. */
  size!: number;

  constructor() {
    this.clear(false);
  }

  add(term: string, id: number, tf: number) {
    const e = ++this.size;
    if (e >= this.ids.length) {
      [this.ids, this.tfs, this.next] = [
        grow(this.ids, e + 1),
        grow(this.tfs, e + 1),
        grow(this.next, e + 1),
      ];
    }
    this.ids[e] = id;
    this.tfs[e] = tf;
    this.next[e] = 0;
    let c = this.chains.get(term);
    if (c === undefined) {
      c = this.chains.size;
      this.chains.set(term, c);
      if (c >= this.first.length) {
        [this.first, this.last, this.count] = [
          grow(this.first, c + 1),
          grow(this.last, c + 1),
          grow(this.count, c + 1),
        ];
      }
      this.first[c] = e;
      this.count[c] = 0;
    } else this.next[this.last[c]] = e;
    this.last[c] = e;
    this.count[c]++;
  }

  /** Bytes held: the arrays, and a term string and Map entry per chain. */
  bytes(): number {
    const arrays = [this.first, this.last, this.count, this.ids, this.tfs, this.next];
    return arrays.reduce((n, a) => n + a.byteLength, 0) + this.chains.size * MAP_ENTRY_BYTES;
  }

  /** Forgets every entry; keeps the buffers for the next documents while a build goes on. */
  clear(building: boolean) {
    this.chains = new Map();
    this.size = 0;
    if (building) return;
    this.first = new Uint32Array(16);
    this.last = new Uint32Array(16);
    this.count = new Uint32Array(16);
    this.ids = new Uint32Array(64);
    this.tfs = new Uint32Array(64);
    this.next = new Uint32Array(64);
  }
}
