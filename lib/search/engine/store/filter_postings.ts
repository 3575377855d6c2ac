/**
 * A site's filters in its index, both ways round: for each name and value, the documents
 * carrying it (doc_set.ts: a list when rare, a bitset when common); for each document, the
 * values it carries. A filtered search tests its matches against the first; facets count the
 * second over the matches, and a removal takes out only what the page carried. Nothing costs
 * the site's names × values × documents.
 */
import { Bitset } from "./bitset.ts";
import { DocSet } from "./doc_set.ts";
import { bufferBytes, MAP_ENTRY_BYTES, stringBytes } from "./held_bytes.ts";

/** Filter name → its values for one document. */
export type DocFilters = Record<string, string[]>;

/** One facet value and how many of the matches carry it. */
export interface FacetValue {
  value: string;
  count: number;
}

/** Values of each name a facet lists at most (docs/api.md: the 10 largest). */
export const FACET_VALUES = 10;

/**
 * Filter names a site's index holds, and values of each: every value is a set of documents, in
 * memory and in snapshots. Pages are admitted within these (lib/sites/filter_vocabulary.ts);
 * the index holds to them too, whatever its pages carry. Within them a value's code fits 16
 * bits (64,000 values at most).
 */
export const SITE_FILTER_LIMITS = { names: 64, valuesPerName: 1000 } as const;

/** A slot of the code tables (a pointer in three arrays), about. */
const CODE_SLOT_BYTES = 24;

const NONE = new Uint16Array(0);

/**
 * Each document's values (as codes), one run per document in one array: what a removal takes
 * out and what facets count, without a look at any value the document does not carry.
 */
class CarriedCodes {
  /** Where each document's run starts in `codes`, and its length (0: none). */
  start = new Uint32Array(0);
  length = new Uint16Array(0);
  codes = new Uint16Array(0);
  /** Codes written, and of those the ones in runs given up (a document removed or rewritten). */
  private used = 0;
  private stale = 0;

  /** The codes document `id` carries (a view, until the next change). */
  of(id: number): Uint16Array {
    if (id >= this.length.length || !this.length[id]) return NONE;
    return this.codes.subarray(this.start[id], this.start[id] + this.length[id]);
  }

  /** Sets document `id`'s codes. */
  set(id: number, codes: readonly number[]) {
    if (id >= this.start.length) {
      this.repack(Math.max(id + 1, this.start.length * 2, 64), 0, (i) => i);
    }
    this.drop(id);
    if (this.used + codes.length > this.codes.length) {
      this.repack(this.start.length, codes.length, (i) => i);
    }
    this.start[id] = this.used;
    this.length[id] = codes.length;
    this.codes.set(codes, this.used);
    this.used += codes.length;
  }

  /** Forgets document `id`'s codes. */
  drop(id: number) {
    if (id >= this.length.length) return;
    this.stale += this.length[id];
    this.length[id] = 0;
  }

  /** Renumbers documents (`remap`: old id → new id, -1 for the gone). */
  renumber(remap: Int32Array) {
    let slots = 0;
    for (let id = 0; id < remap.length; id++) if (remap[id] >= 0) slots = remap[id] + 1;
    this.repack(slots, 0, (id) => id < remap.length ? remap[id] : -1);
  }

  /**
   * Writes the runs again, without stale codes and with room for `room` more (twice what is
   * live, so a rewrite is paid for by as many codes written), for `slots` documents.
   */
  private repack(slots: number, room: number, to: (id: number) => number) {
    const { start, length, codes } = this;
    this.start = new Uint32Array(slots);
    this.length = new Uint16Array(slots);
    this.codes = new Uint16Array(Math.max(64, (this.used - this.stale + room) * 2));
    this.used = this.stale = 0;
    for (let id = 0; id < length.length; id++) {
      const k = length[id], next = k ? to(id) : -1;
      if (next < 0) continue;
      this.start[next] = this.used;
      this.length[next] = k;
      for (let j = start[id]; j < start[id] + k; j++) this.codes[this.used++] = codes[j];
    }
  }

  /** The runs of `sets` (by code) over `n` documents: a decoded index's. */
  static of(sets: readonly DocSet[], n: number): CarriedCodes {
    const out = new CarriedCodes();
    out.start = new Uint32Array(n);
    out.length = new Uint16Array(n);
    for (const docs of sets) for (const id of docs.ids()) out.length[id]++;
    let at = 0;
    for (let id = 0; id < n; id++) {
      out.start[id] = at;
      at += out.length[id];
    }
    out.codes = new Uint16Array(Math.max(64, at));
    out.used = at;
    const next = out.start.slice();
    sets.forEach((docs, code) => {
      for (const id of docs.ids()) out.codes[next[id]++] = code;
    });
    return out;
  }

  bytes(seen: Set<ArrayBufferLike>): number {
    return bufferBytes(this.start, seen) + bufferBytes(this.length, seen) +
      bufferBytes(this.codes, seen);
  }
}

export class FilterPostings {
  /** Name → value → the value's code: its place in the tables below. */
  readonly names = new Map<string, Map<string, number>>();
  /** By code: the documents carrying the value, its name and itself (empty: a free code). */
  private docsOf: (DocSet | undefined)[] = [];
  private nameOf: string[] = [];
  private valueOf: string[] = [];
  /** Codes of values no document carries any more, for new values. */
  private free: number[] = [];
  private carried = new CarriedCodes();

  /** The documents carrying a value, if any does. */
  docs(name: string, value: string): DocSet | undefined {
    const code = this.names.get(name)?.get(value);
    return code === undefined ? undefined : this.docsOf[code];
  }

  /** Notes a document's filters, past SITE_FILTER_LIMITS none that is new. */
  add(id: number, filters: DocFilters) {
    const carried = [...this.carried.of(id)];
    const before = carried.length;
    for (const [name, values] of Object.entries(filters)) {
      let byValue = this.names.get(name);
      if (!byValue) {
        if (this.names.size >= SITE_FILTER_LIMITS.names || !values.length) continue;
        this.names.set(name, byValue = new Map());
      }
      for (const value of values) {
        let code = byValue.get(value);
        if (code === undefined) {
          if (byValue.size >= SITE_FILTER_LIMITS.valuesPerName) continue;
          byValue.set(value, code = this.open(name, value));
        }
        if (this.docsOf[code]!.add(id)) carried.push(code);
      }
    }
    if (carried.length > before) this.carried.set(id, carried);
  }

  /** Forgets a document: a value no document carries any more is dropped. */
  remove(id: number) {
    for (const code of this.carried.of(id)) {
      const docs = this.docsOf[code]!;
      docs.delete(id);
      if (!docs.size) this.close(code);
    }
    this.carried.drop(id);
  }

  /** Renumbers documents after a seal (`remap`: old id → new id, -1 for the gone). */
  remap(remap: Int32Array) {
    this.docsOf.forEach((docs, code) => {
      if (!docs) return;
      const moved = docs.remapped(remap);
      if (moved.size) this.docsOf[code] = moved;
      else this.close(code);
    });
    this.carried.renumber(remap);
  }

  /**
   * Per asked name, the documents carrying one of its values (OR); a document passes when it
   * is in every name's set (AND). An unknown name or value adds an empty set: nothing passes.
   */
  chosen(wanted: ReadonlyMap<string, readonly string[]>): Map<string, Bitset> {
    const out = new Map<string, Bitset>();
    for (const [name, values] of wanted) {
      const docs = new Bitset();
      for (const v of values) this.docs(name, v)?.addTo(docs);
      out.set(name, docs);
    }
    return out;
  }

  /**
   * Facets for the matches `ids` (distinct): for each name the site has, its largest values
   * (most matches first, then by value) among the matches that pass every chosen name but its
   * own. Each match's own values are counted: the work is the matches' values, whatever else
   * the site holds.
   */
  facets(
    ids: ArrayLike<number>,
    chosen: ReadonlyMap<string, Bitset>,
  ): Record<string, FacetValue[]> {
    const picked = [...chosen];
    const counts = new Uint32Array(this.docsOf.length);
    const touched: number[] = [];
    const { start, length, codes } = this.carried;
    // Indexed loops: a search counts every match, and iterators made objects as they went.
    for (let m = 0; m < ids.length; m++) {
      const id = ids[m];
      if (id >= length.length || !length[id]) continue;
      // A match that fails one chosen name counts for that name's values only; two, for none.
      let failed: string | undefined, fails = 0;
      for (let k = 0; k < picked.length; k++) {
        if (picked[k][1].has(id)) continue;
        failed = picked[k][0];
        if (++fails > 1) break;
      }
      if (fails > 1) continue;
      for (let k = start[id], end = k + length[id]; k < end; k++) {
        const code = codes[k];
        if (fails && this.nameOf[code] !== failed) continue;
        if (counts[code]++ === 0) touched.push(code);
      }
    }
    // Each name's best values so far, best first: a short list a value enters only by beating
    // its last (no list of every value counted is made or sorted).
    const { valueOf, nameOf } = this;
    const before = (a: number, b: number) =>
      counts[a] > counts[b] || (counts[a] === counts[b] && valueOf[a] < valueOf[b]);
    const best = new Map<string, number[]>();
    for (const name of [...this.names.keys()].sort()) best.set(name, []);
    for (const code of touched) {
      const top = best.get(nameOf[code])!;
      if (top.length < FACET_VALUES) top.push(code);
      else if (before(code, top[FACET_VALUES - 1])) top[FACET_VALUES - 1] = code;
      else continue;
      for (let i = top.length - 1; i > 0 && before(top[i], top[i - 1]); i--) {
        [top[i - 1], top[i]] = [top[i], top[i - 1]];
      }
    }
    // Defined, not assigned: a filter may be named `__proto__`.
    return Object.fromEntries(
      [...best].map(([name, top]) => [
        name,
        top.map((code) => ({ value: valueOf[code], count: counts[code] })),
      ]),
    );
  }

  /** Bytes held: every set, names and values, the code tables and each document's codes. */
  bytes(seen: Set<ArrayBufferLike>): number {
    let n = this.docsOf.length * CODE_SLOT_BYTES + this.carried.bytes(seen);
    for (const [name, byValue] of this.names) {
      n += stringBytes(name) + MAP_ENTRY_BYTES;
      for (const [value, code] of byValue) {
        n += stringBytes(value) + MAP_ENTRY_BYTES + this.docsOf[code]!.bytes(seen);
      }
    }
    return n;
  }

  /**
   * For a snapshot of `n` documents: names with their values, and every value's set one after
   * another, each a list of its ids or a bitset of ⌈n / 32⌉ words, the shorter (doc_set.ts).
   */
  encode(n: number): { names: [string, string[]][]; words: Uint32Array } {
    const names: [string, string[]][] = [];
    const sets: DocSet[] = [];
    for (const [name, byValue] of this.names) {
      names.push([name, [...byValue.keys()]]);
      for (const code of byValue.values()) sets.push(this.docsOf[code]!);
    }
    const words = new Uint32Array(sets.reduce((k, s) => k + s.encodedLength(n), 0));
    let at = 0;
    for (const s of sets) at = s.encodeInto(words, at, n);
    return { names, words };
  }

  /** What `encode` gave, for `n` documents; null when it does not hold together. */
  static decode(names: unknown, words: Uint32Array, n: number): FilterPostings | null {
    if (!Array.isArray(names) || names.length > SITE_FILTER_LIMITS.names) return null;
    const out = new FilterPostings();
    let at = 0;
    for (const entry of names) {
      if (!Array.isArray(entry) || typeof entry[0] !== "string" || !Array.isArray(entry[1])) {
        return null;
      }
      const [name, values] = entry as [string, unknown[]];
      if (out.names.has(name) || !values.length) return null;
      if (values.length > SITE_FILTER_LIMITS.valuesPerName) return null;
      const byValue = new Map<string, number>();
      out.names.set(name, byValue);
      for (const value of values) {
        if (typeof value !== "string" || byValue.has(value)) return null;
        const decoded = DocSet.decode(words, at, n);
        if (!decoded) return null;
        at = decoded.end;
        byValue.set(value, out.docsOf.length);
        out.docsOf.push(decoded.set);
        out.nameOf.push(name);
        out.valueOf.push(value);
      }
    }
    if (at !== words.length) return null;
    out.carried = CarriedCodes.of(out.docsOf as DocSet[], n);
    return out;
  }

  /** A code for a new value (a free one first). */
  private open(name: string, value: string): number {
    const code = this.free.pop() ?? this.docsOf.length;
    this.docsOf[code] = new DocSet();
    this.nameOf[code] = name;
    this.valueOf[code] = value;
    return code;
  }

  /** Drops a value no document carries any more (and its name, when it was the last). */
  private close(code: number) {
    const name = this.nameOf[code], byValue = this.names.get(name)!;
    byValue.delete(this.valueOf[code]);
    if (!byValue.size) this.names.delete(name);
    this.docsOf[code] = undefined;
    this.nameOf[code] = this.valueOf[code] = "";
    this.free.push(code);
  }
}
