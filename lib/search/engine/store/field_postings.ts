/**
 * One field's postings: a sealed part (sorted terms as UTF-8 in one byte array, term_table.ts; each
 * term's documents and term frequencies as ranges of two typed arrays, ids ascending) and
 * a recent part (recent_postings.ts) for documents added since; lookups read both.
 */
import { TermTable, TermTableBuilder } from "./term_table.ts";
import { bufferBytes } from "./held_bytes.ts";
import { Recent } from "./recent_postings.ts";

/**
 * Document ids of a sealed part: 16 bits where the documents are 65,536 or fewer (nearly every
 * site; two bytes a posting instead of four), else 32.
 */
export type Ids = Uint16Array | Uint32Array;

/** One term's documents (ascending internal ids) and how often each uses it. */
export interface Hit {
  term: string;
  ids: Ids;
  tfs: Uint16Array;
}

/**
 * Term frequencies are kept in 16 bits (two bytes a posting instead of four): a page using a
 * word more often counts as using it this often, which BM25's saturation cannot tell apart.
 */
const MAX_TF = 0xffff;

/** First index in sorted `terms` whose term is not below `term` (the recent part's terms). */
function lowerBound(terms: string[], term: string): number {
  let lo = 0, hi = terms.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (terms[mid] < term) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const EMPTY = new Uint32Array(0), EMPTY_TFS = new Uint16Array(0);

/** One field's postings. */
export class FieldPostings {
  /** The sealed part's terms; term i's postings are offsets[i] to offsets[i + 1]. */
  table = new TermTable();
  offsets: Uint32Array = new Uint32Array(1);
  ids: Ids = EMPTY;
  tfs: Uint16Array = EMPTY_TFS;
  /** Documents added since the last seal (ids ascending along each chain). */
  private recent = new Recent();
  /** `recent`'s terms sorted, for prefix lookups; null once a document is added. */
  private recentSorted: string[] | null = null;

  /** Postings added since the last seal. */
  get recentSize(): number {
    return this.recent.size;
  }

  /** Bytes held (a seal's arrays may be views of a larger buffer: each buffer counts once). */
  bytes(seen: Set<ArrayBufferLike>): number {
    return bufferBytes(this.table.bytes, seen) + bufferBytes(this.table.starts, seen) +
      bufferBytes(this.offsets, seen) + bufferBytes(this.ids, seen) + bufferBytes(this.tfs, seen) +
      this.recent.bytes();
  }

  add(id: number, counts: Map<string, number>) {
    for (const [term, tf] of counts) this.recent.add(term, id, Math.min(tf, MAX_TF));
    if (counts.size) this.recentSorted = null;
  }

  /** A token's frequency in one document (0 when absent). */
  tf(id: number, term: string): number {
    return this.tfAt(this.table.indexOf(term), this.recent.chains.get(term), id);
  }

  /** `term`'s frequency in each document of `ids`, into `out` (0 where absent): one lookup of the term. */
  tfsOf(term: string, ids: ArrayLike<number>, out: Uint16Array) {
    const i = this.table.indexOf(term), chain = this.recent.chains.get(term);
    for (let j = 0; j < ids.length; j++) out[j] = this.tfAt(i, chain, ids[j]);
  }

  /** The frequency in document `id` of sealed term `i` (-1: none) and recent chain `chain`. */
  private tfAt(i: number, chain: number | undefined, id: number): number {
    if (i >= 0) {
      let lo = this.offsets[i], hi = this.offsets[i + 1] - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const at = this.ids[mid];
        if (at === id) return this.tfs[mid];
        if (at < id) lo = mid + 1;
        else hi = mid - 1;
      }
    }
    const r = this.recent;
    if (chain !== undefined) {
      for (let e = r.first[chain]; e; e = r.next[e]) if (r.ids[e] === id) return r.tfs[e];
    }
    return 0;
  }

  /**
   * The hit of one term, sealed and recent postings together, dead documents left out.
   * `term` null: only sealed term `sealed`, whose string is sliced only for a hit.
   */
  private hit(
    term: string | null,
    sealed: number,
    dead: Uint8Array,
    anyDead: boolean,
  ): Hit | null {
    const r = this.recent, c = term === null ? undefined : r.chains.get(term);
    let from = 0, to = 0;
    if (sealed >= 0) [from, to] = [this.offsets[sealed], this.offsets[sealed + 1]];
    if (c === undefined && !anyDead) {
      if (to <= from) return null;
      return {
        term: term ?? this.table.at(sealed),
        ids: this.ids.subarray(from, to),
        tfs: this.tfs.subarray(from, to),
      };
    }
    const n = to - from + (c === undefined ? 0 : r.count[c]);
    const ids = new Uint32Array(n), tfs = new Uint16Array(n);
    let k = 0;
    for (let p = from; p < to; p++) {
      const id = this.ids[p];
      if (dead[id]) continue;
      ids[k] = id;
      tfs[k++] = this.tfs[p];
    }
    if (c !== undefined) {
      for (let e = r.first[c]; e; e = r.next[e]) {
        if (dead[r.ids[e]]) continue;
        ids[k] = r.ids[e];
        tfs[k++] = r.tfs[e];
      }
    }
    if (!k) return null;
    return {
      term: term ?? this.table.at(sealed),
      ids: ids.subarray(0, k),
      tfs: tfs.subarray(0, k),
    };
  }

  /** Documents holding `token` exactly, or (prefix) every term starting with it, terms in order. */
  *lookup(token: string, prefix: boolean, dead: Uint8Array, anyDead: boolean): Generator<Hit> {
    const { table } = this;
    if (!prefix) {
      const h = this.hit(token, table.indexOf(token), dead, anyDead);
      if (h) yield h;
      return;
    }
    let i = table.lowerBound(token);
    const recent = this.recentSorted ??= [...this.recent.chains.keys()].sort();
    let j = lowerBound(recent, token);
    for (;;) {
      const s = i < table.length && table.startsWith(i, token);
      const r = j < recent.length && recent[j].startsWith(token) ? recent[j] : null;
      if (!s && r === null) return;
      // Sealed term i against the recent one: below 0 when only the sealed one comes now.
      const order = !s ? 1 : r === null ? -1 : table.compare(i, r);
      let h: Hit | null;
      if (order < 0) h = this.hit(null, i++, dead, anyDead);
      else if (order === 0) h = this.hit(r, i++, dead, anyDead), j++;
      else h = this.hit(r, -1, dead, anyDead), j++;
      if (h) yield h;
    }
  }

  /** Postings in the sealed part. */
  get sealedSize(): number {
    return this.ids.length;
  }

  /**
   * Merges the recent part into the sealed one, renumbering ids by `remap` (-1: dead) to
   * 0…live-1.
   */
  seal(remap: Int32Array, live: number, building: boolean) {
    const rc = this.recent;
    const recent = [...rc.chains.keys()].sort();
    const cap = this.ids.length + rc.size;
    const ids = live <= 0x10000 ? new Uint16Array(cap) : new Uint32Array(cap);
    const tfs = new Uint16Array(cap);
    const terms = new TermTableBuilder();
    const offsets: number[] = [0];
    let n = 0, i = 0, j = 0;
    const old = this.table;
    while (i < old.length || j < recent.length) {
      const r = j < recent.length ? recent[j] : null;
      const order = i >= old.length ? 1 : r === null ? -1 : old.compare(i, r);
      const fromSealed = order <= 0;
      const start = n;
      if (fromSealed) {
        for (let p = this.offsets[i]; p < this.offsets[i + 1]; p++) {
          const id = remap[this.ids[p]];
          if (id < 0) continue;
          ids[n] = id;
          tfs[n++] = this.tfs[p];
        }
        i++;
      }
      if (order >= 0) {
        for (let e = rc.first[rc.chains.get(r!)!]; e; e = rc.next[e]) {
          const id = remap[rc.ids[e]];
          if (id < 0) continue;
          ids[n] = id;
          tfs[n++] = rc.tfs[e];
        }
        j++;
      }
      if (n > start) {
        // The term as the old table holds it (no string made), or the recent one.
        if (order < 0) terms.copy(old, i - 1);
        else terms.add(r!);
        offsets.push(n);
      }
    }
    this.table = terms.finish();
    this.offsets = Uint32Array.from(offsets);
    // Views, not copies: what dead documents held stays unused until the next seal.
    this.ids = ids.subarray(0, n);
    this.tfs = tfs.subarray(0, n);
    rc.clear(building);
    this.recentSorted = null;
  }
}
