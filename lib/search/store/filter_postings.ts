/**
 * A site's filters in its index: for each name and value, the documents carrying it as a
 * bitset (bitset.ts). A filtered search tests its matches against these sets, and facets
 * count what each value's set shares with the matches: never a scan of every page.
 */
import { Bitset } from "./bitset.ts";
import { bufferBytes, MAP_ENTRY_BYTES, stringBytes } from "./held_bytes.ts";

/** Filter name → its values for one document. */
export type DocFilters = Record<string, string[]>;

/** One facet value and how many of the matches carry it. */
export interface FacetValue {
  value: string;
  count: number;
}

/** Values of each name a facet lists at most (API.md: the 10 largest). */
export const FACET_VALUES = 10;

/**
 * Filter names a site's index holds, and values of each: every value is a set of documents, in
 * memory and in snapshots. Pages are admitted within these (lib/sites/filter_vocabulary.ts);
 * the index holds to them too, whatever its pages carry.
 */
export const SITE_FILTER_LIMITS = { names: 64, valuesPerName: 1000 } as const;

export class FilterPostings {
  /** Name → value → documents. */
  readonly names = new Map<string, Map<string, Bitset>>();

  /** Notes a document's filters, past SITE_FILTER_LIMITS none that is new. */
  add(id: number, filters: DocFilters) {
    for (const [name, values] of Object.entries(filters)) {
      let byValue = this.names.get(name);
      if (!byValue) {
        if (this.names.size >= SITE_FILTER_LIMITS.names) continue;
        this.names.set(name, byValue = new Map());
      }
      for (const value of values) {
        let docs = byValue.get(value);
        if (!docs) {
          if (byValue.size >= SITE_FILTER_LIMITS.valuesPerName) continue;
          byValue.set(value, docs = new Bitset());
        }
        docs.add(id);
      }
    }
  }

  /** Forgets a document: a value no document carries any more is dropped. */
  remove(id: number) {
    for (const [name, byValue] of this.names) {
      for (const [value, docs] of byValue) {
        if (!docs.has(id)) continue;
        docs.delete(id);
        if (docs.size === 0) byValue.delete(value);
      }
      if (!byValue.size) this.names.delete(name);
    }
  }

  /** Renumbers documents after a seal (`remap`: old id → new id, -1 for the gone). */
  remap(remap: Int32Array) {
    for (const [name, byValue] of this.names) {
      for (const [value, docs] of byValue) {
        const moved = docs.remapped(remap);
        if (moved.size) byValue.set(value, moved);
        else byValue.delete(value);
      }
      if (!byValue.size) this.names.delete(name);
    }
  }

  /**
   * Per asked name, the documents carrying one of its values (OR); a document passes when it
   * is in every name's set (AND). An unknown name or value adds an empty set: nothing passes.
   */
  chosen(wanted: ReadonlyMap<string, readonly string[]>): Map<string, Bitset> {
    const out = new Map<string, Bitset>();
    for (const [name, values] of wanted) {
      const docs = new Bitset();
      for (const v of values) {
        const set = this.names.get(name)?.get(v);
        if (set) docs.addAll(set);
      }
      out.set(name, docs);
    }
    return out;
  }

  /**
   * Facets for the matches `ids`: for each name the site has, its largest values (most
   * matches first, then by value) among the matches that pass every chosen name but its own.
   */
  facets(ids: readonly number[], chosen: Map<string, Bitset>): Record<string, FacetValue[]> {
    const passing = (except: string) => {
      const out = new Bitset();
      for (const id of ids) {
        let ok = true;
        for (const [name, docs] of chosen) if (name !== except && !docs.has(id)) ok = false;
        if (ok) out.add(id);
      }
      return out;
    };
    // Names not chosen share one set: the matches passing every chosen name.
    const all = passing("");
    const out: Record<string, FacetValue[]> = {};
    for (const name of [...this.names.keys()].sort()) {
      const base = chosen.has(name) ? passing(name) : all;
      const counted: FacetValue[] = [];
      for (const [value, docs] of this.names.get(name)!) {
        const count = base.sharedWith(docs);
        if (count) counted.push({ value, count });
      }
      counted.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
      out[name] = counted.slice(0, FACET_VALUES);
    }
    return out;
  }

  /** Bytes held: every set's words, names and values. */
  bytes(seen: Set<ArrayBufferLike>): number {
    let n = 0;
    for (const [name, byValue] of this.names) {
      n += stringBytes(name) + MAP_ENTRY_BYTES;
      for (const [value, docs] of byValue) {
        n += stringBytes(value) + MAP_ENTRY_BYTES + bufferBytes(docs.words, seen);
      }
    }
    return n;
  }

  /**
   * For a snapshot of `n` documents: names with their values, and every set's words one
   * after another, each of ⌈n / 32⌉ words (at least one).
   */
  encode(n: number): { names: [string, string[]][]; words: Uint32Array } {
    const width = Math.max(1, (n + 31) >>> 5);
    const names: [string, string[]][] = [];
    const sets: Bitset[] = [];
    for (const [name, byValue] of this.names) {
      names.push([name, [...byValue.keys()]]);
      sets.push(...byValue.values());
    }
    const words = new Uint32Array(sets.length * width);
    sets.forEach((s, i) => words.set(s.words.subarray(0, width), i * width));
    return { names, words };
  }

  /** What `encode` gave, for `n` documents; null when it does not hold together. */
  static decode(names: unknown, words: Uint32Array, n: number): FilterPostings | null {
    const width = Math.max(1, (n + 31) >>> 5);
    const out = new FilterPostings();
    if (!Array.isArray(names)) return null;
    let at = 0;
    for (const entry of names) {
      if (!Array.isArray(entry) || typeof entry[0] !== "string" || !Array.isArray(entry[1])) {
        return null;
      }
      const byValue = new Map<string, Bitset>();
      for (const value of entry[1]) {
        if (typeof value !== "string" || (at + 1) * width > words.length) return null;
        // Copied: a set grows and changes as pages change, the snapshot's bytes do not.
        const set = new Bitset(words.slice(at * width, ++at * width));
        // No document past the last one.
        if (n % 32 && set.words[width - 1] >>> (n % 32)) return null;
        byValue.set(value, set);
      }
      out.names.set(entry[0], byValue);
    }
    return at * width === words.length ? out : null;
  }
}
