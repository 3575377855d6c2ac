/**
 * A site's inverted index in typed arrays: every field's postings (field_postings.ts: a
 * sealed part and a small recent part for documents added since) and lengths. Removed
 * documents are marked dead and skipped until the next seal, which merges both parts and
 * numbers the live documents densely again. Sealing happens by itself when the recent part
 * or the dead grow past a share of the whole (on insert, and more eagerly on lookup), so
 * callers never ask for it.
 */
import { FieldPostings, type Hit } from "./field_postings.ts";
import { bufferBytes } from "./held_bytes.ts";

export type { Hit, Ids } from "./field_postings.ts";

export const FIELDS = ["title", "description", "headings", "body"] as const;
export type Field = typeof FIELDS[number];

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

  /** A token's frequency in each document of `ids`' field, into `out` (0 when absent or removed). */
  tfsOf(field: Field, token: string, ids: ArrayLike<number>, out: Uint16Array) {
    this.fields[field].tfsOf(token, ids, out);
    if (this.deadCount) { for (let j = 0; j < ids.length; j++) if (this.dead[ids[j]]) out[j] = 0; }
  }

  /** A token's frequency in one document's field (0 when absent or removed). */
  get(field: Field, id: number, token: string): number {
    return this.dead[id] ? 0 : this.fields[field].tf(id, token);
  }
}
