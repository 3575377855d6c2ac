/**
 * A site's inverted index in typed arrays. Per field, a sealed part (sorted terms in one
 * string, term_table.ts; each term's documents and term frequencies as ranges of two
 * Uint32Arrays, ids ascending) and a small recent part (term → [id, tf, id, tf, …]) for documents
 * added since; removed documents are marked dead and skipped until the next seal,
 * which merges both parts and numbers the live documents densely again. Sealing
 * happens by itself when the recent part or the dead grow past a share of the whole
 * (on insert, and more eagerly on lookup), so callers never ask for it.
 */
import { TermTable } from "./term_table.ts";
import { bufferBytes, MAP_ENTRY_BYTES, stringBytes } from "./held_bytes.ts";

export const FIELDS = ["title", "description", "headings", "body"] as const;
export type Field = typeof FIELDS[number];

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
export const MAX_TF = 0xffff;

/** A growable Uint32 column indexed by internal id (`get` reads 0 past the end, where only 0s go). */
export class Column {
  constructor(public data: Uint32Array = new Uint32Array(64)) {}

  get(id: number): number {
    return this.data[id] ?? 0;
  }

  set(id: number, value: number) {
    if (id >= this.data.length) {
      // A field no document uses (often the description) keeps no column of zeros.
      if (value === 0) return;
      const grown = new Uint32Array(Math.max(id + 1, this.data.length * 2));
      grown.set(this.data);
      this.data = grown;
    }
    this.data[id] = value;
  }
}

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

function grow(a: Uint32Array, min: number): Uint32Array {
  const out = new Uint32Array(Math.max(min, a.length * 2));
  out.set(a);
  return out;
}

/**
 * Postings added since the last seal: one log in typed arrays (id, tf, next entry of the
 * same term), chained per term, so a build makes no array per term. Entry 0 is unused.
 */
class Recent {
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
    return stringBytes(this.table.blob) + bufferBytes(this.table.starts, seen) +
      bufferBytes(this.offsets, seen) + bufferBytes(this.ids, seen) + bufferBytes(this.tfs, seen) +
      this.recent.bytes();
  }

  add(id: number, counts: Map<string, number>) {
    for (const [term, tf] of counts) this.recent.add(term, id, Math.min(tf, MAX_TF));
    if (counts.size) this.recentSorted = null;
  }

  /** A token's frequency in one document (0 when absent). */
  tf(id: number, term: string): number {
    const i = this.table.indexOf(term);
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
    const r = this.recent, c = r.chains.get(term);
    if (c !== undefined) {
      for (let e = r.first[c]; e; e = r.next[e]) if (r.ids[e] === id) return r.tfs[e];
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
    const terms: string[] = [];
    const offsets: number[] = [0];
    let n = 0, i = 0, j = 0;
    const old = this.table;
    while (i < old.length || j < recent.length) {
      const r = j < recent.length ? recent[j] : null;
      const order = i >= old.length ? 1 : r === null ? -1 : old.compare(i, r);
      const fromSealed = order <= 0;
      const term = order < 0 ? old.at(i) : r!;
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
        terms.push(term);
        offsets.push(n);
      }
    }
    this.table = TermTable.from(terms);
    this.offsets = Uint32Array.from(offsets);
    // Views, not copies: what dead documents held stays unused until the next seal.
    this.ids = ids.subarray(0, n);
    this.tfs = tfs.subarray(0, n);
    rc.clear(building);
    this.recentSorted = null;
  }
}

/** Below these sizes the recent part and the dead are left alone. */
const MIN_RECENT = 32_768, MIN_DEAD = 64;

/** Every field's postings and lengths, over documents numbered 0, 1, 2, … (internal ids). */
export class InvertedIndex {
  fields: Record<Field, FieldPostings> = {
    title: new FieldPostings(),
    description: new FieldPostings(),
    headings: new FieldPostings(),
    body: new FieldPostings(),
  };
  /** Words per field per document, and their sum per field over live documents. */
  lengths: Record<Field, Column> = {
    title: new Column(),
    description: new Column(),
    headings: new Column(),
    body: new Column(),
  };
  totals: Record<Field, number> = { title: 0, description: 0, headings: 0, body: 0 };
  /** 1 for a removed document whose postings are still there. */
  dead = new Uint8Array(64);
  deadCount = 0;
  /** Ids given so far (the next document's id). */
  slots = 0;

  /** Number of live documents. */
  get live(): number {
    return this.slots - this.deadCount;
  }

  /** Indexes one document's counted fields; returns its id. */
  add(fields: Partial<Record<Field, { counts: Map<string, number>; length: number }>>): number {
    const id = this.slots++;
    if (id >= this.dead.length) {
      const grown = new Uint8Array(this.dead.length * 2);
      grown.set(this.dead);
      this.dead = grown;
    }
    for (const f of FIELDS) {
      const c = fields[f];
      if (!c) continue;
      this.fields[f].add(id, c.counts);
      this.lengths[f].set(id, c.length);
      this.totals[f] += c.length;
    }
    return id;
  }

  /** Marks a document removed: its postings are skipped until the next seal. */
  remove(id: number) {
    if (id >= this.slots || this.dead[id]) return;
    this.dead[id] = 1;
    this.deadCount++;
    for (const f of FIELDS) {
      this.totals[f] -= this.lengths[f].get(id);
      this.lengths[f].set(id, 0);
    }
  }

  /** Whether anything was added or removed since the last seal. */
  get changed(): boolean {
    return this.deadCount > 0 || FIELDS.some((f) => this.fields[f].recentSize > 0);
  }

  /**
   * Whether a seal is due: on insert when the recent part is as large as the sealed one (a
   * build copies each posting about twice) or a quarter of the documents are dead; on
   * lookup at a sixteenth (lookups in the recent part cost more).
   */
  due(lookingUp: boolean): boolean {
    let recent = 0, sealed = 0;
    for (const f of FIELDS) {
      recent += this.fields[f].recentSize;
      sealed += this.fields[f].sealedSize;
    }
    if (recent > (lookingUp ? 0 : MIN_RECENT) && recent * (lookingUp ? 16 : 1) >= sealed) {
      return true;
    }
    return this.deadCount >= MIN_DEAD && this.deadCount * (lookingUp ? 16 : 4) >= this.slots;
  }

  /**
   * Merges every field's recent part and drops the dead, numbering live documents
   * 0…live-1 in their order; returns old id → new id (-1 for the dead). While `building`,
   * the recent part keeps its buffers for the documents still to come.
   */
  seal(building = false): Int32Array {
    const remap = new Int32Array(this.slots);
    let n = 0;
    for (let id = 0; id < this.slots; id++) remap[id] = this.dead[id] ? -1 : n++;
    for (const f of FIELDS) {
      this.fields[f].seal(remap, n, building);
      // New ids are never above old ones: the column need not grow.
      const from = this.lengths[f].data;
      const to = new Uint32Array(Math.max(64, Math.min(n, from.length)));
      for (let id = 0; id < Math.min(this.slots, from.length); id++) {
        if (remap[id] >= 0) to[remap[id]] = from[id];
      }
      this.lengths[f].data = to;
    }
    this.dead = new Uint8Array(Math.max(64, n));
    this.deadCount = 0;
    this.slots = n;
    return remap;
  }

  /** Bytes held by every field's postings and lengths (each buffer once). */
  bytes(seen = new Set<ArrayBufferLike>()): number {
    let n = this.dead.byteLength;
    for (const f of FIELDS) {
      n += this.fields[f].bytes(seen) + bufferBytes(this.lengths[f].data, seen);
    }
    return n;
  }

  /** Hits for a token in one field (exact, or every term it starts). */
  lookup(field: Field, token: string, prefix: boolean): Generator<Hit> {
    return this.fields[field].lookup(token, prefix, this.dead, this.deadCount > 0);
  }

  /** A token's frequency in one document's field (0 when absent or removed). */
  get(field: Field, id: number, token: string): number {
    return this.dead[id] ? 0 : this.fields[field].tf(id, token);
  }
}
