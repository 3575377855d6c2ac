/**
 * A set of document ids held in whichever form is smaller: a rare one as its ids in
 * ascending order, a common one as a bitset (bitset.ts). A site's filter values are mostly
 * rare (a tag, a SKU, an author), and a bitset of every document for each of them would cost
 * a site's document count in bits, times its values, whatever its pages carry.
 */
import { Bitset } from "./bitset.ts";
import { bufferBytes } from "./held_bytes.ts";

/**
 * Bytes of one id in the sorted list: a small integer in a JS array, one pointer-sized slot.
 * A typed array per list would take half the slots but a buffer and backing store each.
 */
const ID_BYTES = 8;
/** What a set and its list take beyond the ids, about. */
const SET_BYTES = 64;
/**
 * What a bitset takes beyond its words: its object, typed array, buffer and backing store
 * (measured: about 500 bytes in Deno), so a set of a few ids is a list whatever they are.
 */
const BITSET_BYTES = 512;

/** Words a bitset needs to hold ids up to `max`. */
const wordsFor = (max: number) => (max >>> 5) + 1;

/** Words of an encoded bitset for `n` documents (at least one). */
const widthFor = (n: number) => Math.max(1, (n + 31) >>> 5);

const bitsetBytes = (words: number) => BITSET_BYTES + words * 4;

/** Whether `count` ids up to `max` take more room as a list than as a bitset. */
const denser = (count: number, max: number) => count * ID_BYTES > bitsetBytes(wordsFor(max));

/**
 * Whether a bitset of `words` is better a list: below a quarter of what makes a list a bitset
 * (its words may be up to twice what its ids need, bitset.ts), so adding and removing ids at
 * the edge never turns a set back and forth.
 */
const sparser = (count: number, words: number) => count * ID_BYTES * 4 < bitsetBytes(words);

/** Marks a dense set in the encoded form (a list's first word is its length, never this). */
const DENSE = 0xffffffff;

export class DocSet {
  /** Ids ascending when sparse (null when dense). */
  private list: number[] | null;
  /** The ids as bits when dense (null when sparse). */
  private bits: Bitset | null = null;
  private count: number;

  /** A set of `ids`, ascending and distinct. */
  constructor(ids: number[] = []) {
    this.list = ids;
    this.count = ids.length;
    if (ids.length && denser(ids.length, ids[ids.length - 1])) this.densify();
  }

  /** A set of the ids in `bits` (taken as they are, not copied). */
  static ofBits(bits: Bitset): DocSet {
    const set = new DocSet();
    set.list = null;
    set.bits = bits;
    set.count = bits.size;
    if (sparser(set.count, bits.words.length)) set.sparsify();
    return set;
  }

  /** Whether it is held as a bitset. */
  get dense(): boolean {
    return this.bits !== null;
  }

  get size(): number {
    return this.count;
  }

  has(id: number): boolean {
    if (this.bits) return this.bits.has(id);
    const list = this.list!, at = lowerBound(list, id);
    return at < list.length && list[at] === id;
  }

  /** Adds `id`; false when it was there. */
  add(id: number): boolean {
    if (this.bits) {
      if (this.bits.has(id)) return false;
      this.bits.add(id);
      this.count++;
      // An id far past the others grows the words beyond what a list of them takes.
      if (sparser(this.count, this.bits.words.length)) this.sparsify();
      return true;
    }
    const list = this.list!;
    // An array made for its first id holds one slot (one pushed to holds 17): most sets stay
    // that small. Pages are numbered as they come: an id usually goes last.
    if (!list.length) this.list = [id];
    else if (list[list.length - 1] < id) list.push(id);
    else {
      const at = lowerBound(list, id);
      if (list[at] === id) return false;
      list.splice(at, 0, id);
    }
    this.count++;
    if (denser(this.count, this.list![this.count - 1])) this.densify();
    return true;
  }

  /** Removes `id`; false when it was not there. */
  delete(id: number): boolean {
    if (this.bits) {
      if (!this.bits.has(id)) return false;
      this.bits.delete(id);
      this.count--;
      if (sparser(this.count, this.bits.words.length)) this.sparsify();
      return true;
    }
    const list = this.list!, at = lowerBound(list, id);
    if (list[at] !== id) return false;
    list.splice(at, 1);
    this.count--;
    return true;
  }

  /** Adds every id of the set to `out`. */
  addTo(out: Bitset) {
    if (this.bits) out.addAll(this.bits);
    else for (const id of this.list!) out.add(id);
  }

  /** The ids, ascending. */
  ids(): Iterable<number> {
    return this.bits ? this.bits.ids() : this.list!;
  }

  /** The same ids renumbered (`remap`: old id → new id, -1 for the gone), in the smaller form. */
  remapped(remap: Int32Array): DocSet {
    const moved: number[] = [];
    for (const id of this.ids()) if (id < remap.length && remap[id] >= 0) moved.push(remap[id]);
    // A seal keeps documents in their order; any other renumbering is sorted here.
    for (let i = 1; i < moved.length; i++) {
      if (moved[i - 1] >= moved[i]) {
        moved.sort((a, b) => a - b);
        break;
      }
    }
    return new DocSet(moved);
  }

  /** Bytes held: the list's slots or the bitset's buffer, and the set itself. */
  bytes(seen: Set<ArrayBufferLike>): number {
    if (!this.bits) return SET_BYTES + this.count * ID_BYTES;
    return SET_BYTES + BITSET_BYTES + bufferBytes(this.bits.words, seen);
  }

  /**
   * Words of the encoded form for `n` documents: the list (its length, then its ids) or the
   * bitset (a mark, then ⌈n / 32⌉ words), whichever is shorter.
   */
  encodedLength(n: number): number {
    return 1 + Math.min(this.count, widthFor(n));
  }

  /** Writes the encoded form at `at` of `out` (zeroed there); where it ends. */
  encodeInto(out: Uint32Array, at: number, n: number): number {
    const width = widthFor(n);
    if (this.count < width) {
      out[at++] = this.count;
      for (const id of this.ids()) out[at++] = id;
      return at;
    }
    out[at++] = DENSE;
    if (this.bits) {
      out.set(this.bits.words.subarray(0, Math.min(width, this.bits.words.length)), at);
    } else for (const id of this.list!) out[at + (id >>> 5)] |= 1 << (id & 31);
    return at + width;
  }

  /**
   * The set encoded at `at` of `words` for `n` documents, and where it ends; null when it does
   * not hold together (past the end, an id out of range or out of order, or no id).
   */
  static decode(words: Uint32Array, at: number, n: number): { set: DocSet; end: number } | null {
    if (at >= words.length) return null;
    const head = words[at++];
    if (head === DENSE) {
      const width = widthFor(n);
      if (!n || at + width > words.length) return null;
      // Copied: a set changes as pages change, the snapshot's bytes do not.
      const bits = new Bitset(words.slice(at, at + width));
      // No document past the last one.
      if (n % 32 && bits.words[width - 1] >>> (n % 32)) return null;
      const set = DocSet.ofBits(bits);
      return set.size ? { set, end: at + width } : null;
    }
    if (head < 1 || at + head > words.length) return null;
    const ids = Array.from(words.subarray(at, at + head));
    for (let i = 0; i < ids.length; i++) {
      if (ids[i] >= n || (i && ids[i - 1] >= ids[i])) return null;
    }
    return { set: new DocSet(ids), end: at + head };
  }

  private densify() {
    const list = this.list!;
    const bits = new Bitset(new Uint32Array(wordsFor(list[list.length - 1])));
    for (const id of list) bits.add(id);
    this.bits = bits;
    this.list = null;
  }

  private sparsify() {
    this.list = [...this.bits!.ids()];
    this.bits = null;
  }
}

/** The first place in ascending `list` whose id is `id` or more. */
function lowerBound(list: number[], id: number): number {
  let lo = 0, hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
