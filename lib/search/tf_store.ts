/**
 * Term frequencies kept compactly: each document's tokens are a sorted array
 * (the strings are shared with the index's trees) and their counts a
 * Float32Array, about 8 bytes an entry, found by binary search. A plain object
 * per document and field would cost about 70 bytes an entry.
 */
interface Entry {
  tokens: string[];
  tfs: Float32Array;
}

export class TfStore {
  private byProp = new Map<string, Map<number, Entry>>();

  /** Keeps a document's counts for one field. */
  take(prop: string, id: number, counts: Map<string, number>) {
    const tokens = [...counts.keys()].sort();
    const tfs = Float32Array.from(tokens, (t) => counts.get(t)!);
    let map = this.byProp.get(prop);
    if (!map) this.byProp.set(prop, map = new Map());
    map.set(id, { tokens, tfs });
  }

  /** A token's frequency in one document's field (0 when absent). */
  get(prop: string, id: number, token: string): number {
    const e = this.byProp.get(prop)?.get(id);
    if (!e) return 0;
    let lo = 0, hi = e.tokens.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const t = e.tokens[mid];
      if (t === token) return e.tfs[mid];
      if (t < token) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }

  /** Forgets a removed document. */
  drop(id: number) {
    for (const map of this.byProp.values()) map.delete(id);
  }
}
