/**
 * A site's documents by internal id. Those of a loaded snapshot stay in its bytes as
 * columns (every short text field UTF-8 in one arena, the packed bodies in an arena of their
 * own that a host may keep out of memory, numbers in typed arrays) and become objects
 * only when read, for the few pages a search shows: a loaded site holds a handful of objects
 * instead of several per page, loading makes none, and the GC has nothing of it to trace.
 * Documents added since (a catch-up, or every page of an index built in place) are objects.
 */
import { type PackedSections, soundSections } from "./packed_sections.ts";
import { type PackedSource, soundText, sourceOf } from "./packed_text.ts";
import { bufferBytes, MAP_ENTRY_BYTES, stringBytes } from "./held_bytes.ts";
import { DIGEST_BYTES, hex } from "./text_digest.ts";
import { freeBytes } from "./free_bytes.ts";
import { type BodyArena, heldArena } from "./body_arena.ts";

/** What a stored document holds (site_db.ts); its body packed (packed_text.ts). */
export interface StoredDoc {
  id: string;
  title: string;
  description: string;
  headings: string;
  body: Uint8Array;
  lang: string;
  sections?: PackedSections;
  /** Share of the text in code blocks (a source listing is near 1). */
  codeShare?: number;
  /** Whether the body has letters with diacritics (highlighting must fold it). */
  accented?: boolean;
  /** Where each section's heading line starts in the body (packed_sections.ts). */
  sectionAt?: Int32Array;
  /** `textDigest` of the page's text as kept, which what is read from it is cached by. */
  digest: Uint8Array;
}

/** What a result shows of a document beside its text, read apart (site_db.ts `shownAt`). */
export type ShownFields = Pick<
  StoredDoc,
  "id" | "title" | "description" | "accented" | "sections" | "sectionAt"
>;

/** Text fields a column row holds in `text`, in this order (the body is in `bodies`). */
const TEXTS = 7;
const ID = 0, TITLE = 1, DESCRIPTION = 2, HEADINGS = 3, LANG = 4, SEC_HEADINGS = 5;
const SEC_ANCHORS = 6;

/** Flags per row. */
const F_ACCENTED = 1, F_CODE_SHARE = 2, F_DESCRIPTION = 4, F_SECTIONS = 8;
const F_SECTION_AT = 16;

/** Documents as columns: row `r`'s text field `k` is text[starts[r * TEXTS + k] … the next start]. */
export interface DocColumns {
  flags: Uint8Array;
  codeShare: Float64Array;
  /** Sections per row (0 without). */
  sectionCount: Uint32Array;
  /** Row → where its section offsets start in `sectionAt` (rows + 1 of them). */
  sectionFrom: Uint32Array;
  sectionAt: Int32Array;
  starts: Uint32Array;
  text: Uint8Array;
  /** Each row's `digest`, DIGEST_BYTES of it. */
  digests: Uint8Array;
  /** Row `r`'s packed body is bodies[bodyStarts[r] … bodyStarts[r + 1]]. */
  bodyStarts: Uint32Array;
  bodies: BodyArena;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** What a document object takes beside its text: the object and its strings' and arrays' headers. */
const DOC_BYTES = 900;

export class DocStore {
  /** Internal id → column row, or -1 (a document added since, or none). */
  private rowOf: Int32Array;
  /** Documents added since the columns were made, by internal id. */
  private added = new Map<number, StoredDoc>();
  /** Document id → internal id; the columns' entries are made on the first lookup. */
  private ids = new Map<string, number>();
  private rowsListed: boolean;
  /** Rows still in use. */
  private liveRows: number;
  /** One past the highest internal id given. */
  private end: number;

  constructor(private cols: DocColumns | null = null) {
    const n = cols ? cols.flags.length : 0;
    this.rowOf = new Int32Array(n);
    for (let r = 0; r < n; r++) this.rowOf[r] = r;
    this.rowsListed = n === 0;
    this.liveRows = this.end = n;
  }

  /**
   * Whether a quarter or more of what is held is documents added since the columns were made
   * or rows no longer used: then columns made anew hold the same in less (indexes.ts).
   */
  get loose(): boolean {
    const rows = this.cols?.flags.length ?? 0;
    return (this.added.size + rows - this.liveRows) * 4 >= Math.max(1, rows);
  }

  /** The document with internal id `id` (a new object each time for a row), if any. */
  get(id: number): StoredDoc | undefined {
    const row = id < this.rowOf.length ? this.rowOf[id] : -1;
    return row >= 0 ? this.fromRow(row) : this.added.get(id);
  }

  /**
   * What a result shows of the document with internal id `id`, if any: for a row, only those
   * fields decoded (not its text, headings, language or object of every field); its sections'
   * anchors checked against their count.
   */
  shown(id: number): ShownFields | undefined {
    const row = id < this.rowOf.length ? this.rowOf[id] : -1;
    if (row < 0) {
      const doc = this.added.get(id);
      // As for a row: sections whose anchors do not match are left out.
      return doc?.sections && !soundSections(doc.sections)
        ? { ...doc, sections: undefined, sectionAt: undefined }
        : doc;
    }
    const c = this.cols!, f = c.flags[row];
    return {
      id: this.text(row, ID),
      title: this.text(row, TITLE),
      description: f & F_DESCRIPTION ? this.text(row, DESCRIPTION) : undefined as unknown as string,
      accented: (f & F_ACCENTED) !== 0,
      sections: f & F_SECTIONS ? this.shownSections(row) : undefined,
      sectionAt: this.rowSectionAt(row),
    };
  }

  /** Where a document's section headings start in its body (`shown(id).sectionAt`), if it has them. */
  sectionAt(id: number): Int32Array | undefined {
    const row = id < this.rowOf.length ? this.rowOf[id] : -1;
    return row >= 0 ? this.rowSectionAt(row) : this.shown(id)?.sectionAt;
  }

  /** Row `row`'s section offsets: a view of the columns. */
  private rowSectionAt(row: number): Int32Array | undefined {
    const c = this.cols!, f = c.flags[row];
    return f & F_SECTIONS && f & F_SECTION_AT
      ? c.sectionAt.subarray(c.sectionFrom[row], c.sectionFrom[row + 1])
      : undefined;
  }

  /**
   * Row `row`'s sections, their anchors decoded only when read (a result shows three at most);
   * none when the anchors' lines do not match the sections' count (a bad row).
   */
  private shownSections(row: number): PackedSections | undefined {
    const count = this.cols!.sectionCount[row], bytes = this.field(row, SEC_ANCHORS);
    // A line break is one byte in UTF-8, never a part of another character.
    let lines = 1;
    for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) lines++;
    if (bytes.length && lines !== count) return undefined;
    let anchors: string | undefined;
    return {
      count,
      headings: this.text(row, SEC_HEADINGS),
      get anchors() {
        return anchors ??= bytes.length ? decoder.decode(bytes) : "";
      },
    };
  }

  /**
   * A document's packed body as a result reads it (packed_text.ts): by its arena and where in
   * it, the same at every read, and read only when what is kept of it does not do; a read
   * reuses the arena's buffer where it is kept out of memory.
   */
  bodySource(id: number): PackedSource | undefined {
    const row = id < this.rowOf.length ? this.rowOf[id] : -1;
    if (row < 0) {
      const body = this.added.get(id)?.body;
      return body && sourceOf(body);
    }
    const { bodyStarts, bodies } = this.cols!, from = bodyStarts[row], to = bodyStarts[row + 1];
    return { owner: bodies, at: from, length: to - from, read: () => bodies.read(from, to, true) };
  }

  /** Row `row`'s packed body, as its arena reads it. */
  private rowBody(row: number): Uint8Array {
    const { bodyStarts, bodies } = this.cols!;
    return bodies.read(bodyStarts[row], bodyStarts[row + 1]);
  }

  /** A document's id and packed body's size, without making it an object (stated.ts). */
  *sizes(): Generator<[number, string, number]> {
    const starts = this.cols?.bodyStarts;
    for (let id = 0; id < this.end; id++) {
      const row = id < this.rowOf.length ? this.rowOf[id] : -1;
      if (row >= 0) yield [id, this.text(row, ID), starts![row + 1] - starts![row]];
      else {
        const doc = this.added.get(id);
        if (doc) yield [id, doc.id, doc.body.length];
      }
    }
  }

  /**
   * A key for a document's text, without making it an object (query/passages.ts, stated.ts):
   * its id and its text's digest, which any edit changes.
   */
  textKey(id: number): string | undefined {
    const row = id < this.rowOf.length ? this.rowOf[id] : -1;
    if (row >= 0) return `${this.text(row, ID)}\u0000${hex(this.rowDigest(row))}`;
    const doc = this.added.get(id);
    return doc && `${doc.id}\u0000${hex(doc.digest)}`;
  }

  /** Row `row`'s digest: a view of the columns. */
  private rowDigest(row: number): Uint8Array {
    return this.cols!.digests.subarray(row * DIGEST_BYTES, (row + 1) * DIGEST_BYTES);
  }

  /**
   * What holds a document's data: its row (rows are never rewritten) or the document added
   * since; the same for as long as the document's data is (query/heading_words.ts).
   */
  holder(id: number): number | StoredDoc | undefined {
    const row = id < this.rowOf.length ? this.rowOf[id] : -1;
    return row >= 0 ? row : this.added.get(id);
  }

  /** A document's section headings, one a line, without making it an object (named.ts). */
  sectionHeadings(id: number): string | undefined {
    const row = id < this.rowOf.length ? this.rowOf[id] : -1;
    if (row < 0) return this.added.get(id)?.sections?.headings;
    return this.cols!.flags[row] & F_SECTIONS ? this.text(row, SEC_HEADINGS) : undefined;
  }

  /** The internal id of a document id, if present. */
  idOf(docId: string): number | undefined {
    if (!this.rowsListed) {
      this.rowsListed = true;
      for (let id = 0; id < this.rowOf.length; id++) {
        const row = this.rowOf[id];
        if (row >= 0) this.ids.set(this.text(row, ID), id);
      }
    }
    return this.ids.get(docId);
  }

  /** Stores a document under a new internal id (above every one given so far). */
  put(id: number, doc: StoredDoc) {
    this.idOf(doc.id); // the rows are listed first: the id map is then whole
    this.added.set(id, doc);
    this.ids.set(doc.id, id);
    this.end = Math.max(this.end, id + 1);
  }

  /** Forgets the document with internal id `id` and document id `docId`. */
  remove(id: number, docId: string) {
    if (this.ids.get(docId) !== id) return;
    this.ids.delete(docId);
    if (id < this.rowOf.length && this.rowOf[id] >= 0) {
      this.rowOf[id] = -1;
      this.liveRows--;
    } else this.added.delete(id);
  }

  /** Numbers documents anew after a seal (`remap`: old id → new id, -1 for the gone). */
  remap(remap: Int32Array) {
    let n = 0;
    for (const to of remap) if (to >= 0) n = Math.max(n, to + 1);
    const rowOf = new Int32Array(n).fill(-1);
    for (let id = 0; id < Math.min(this.rowOf.length, remap.length); id++) {
      if (remap[id] >= 0) rowOf[remap[id]] = this.rowOf[id];
    }
    const added = new Map<number, StoredDoc>();
    for (const [id, doc] of this.added) if (remap[id] >= 0) added.set(remap[id], doc);
    const ids = new Map<string, number>();
    for (const [docId, id] of this.ids) if (remap[id] >= 0) ids.set(docId, remap[id]);
    [this.rowOf, this.added, this.ids, this.end] = [rowOf, added, ids, n];
  }

  /** Every document in internal id order. */
  *entries(): Generator<[number, StoredDoc]> {
    for (let id = 0; id < this.end; id++) {
      const doc = this.get(id);
      if (doc) yield [id, doc];
    }
  }

  /** Bytes held: the columns' buffers (once each), the added documents and the id lookups. */
  bytes(seen: Set<ArrayBufferLike>): number {
    let n = this.rowOf.byteLength + this.ids.size * MAP_ENTRY_BYTES;
    if (this.rowsListed) { for (const docId of this.ids.keys()) n += stringBytes(docId); }
    if (this.cols) {
      // The bodies count wherever their arena keeps them: the budget bounds that too.
      const { bodies, ...arrays } = this.cols;
      for (const a of Object.values(arrays)) n += bufferBytes(a, seen);
      n += bodies.byteLength;
    }
    for (const d of this.added.values()) n += docBytes(d, seen);
    return n;
  }

  /** Row `row`'s field `k`, as it is in the arena. */
  private field(row: number, k: number): Uint8Array {
    const { starts, text } = this.cols!, at = row * TEXTS + k;
    return text.subarray(starts[at], starts[at + 1]);
  }

  private text(row: number, k: number): string {
    const bytes = this.field(row, k);
    return bytes.length ? decoder.decode(bytes) : "";
  }

  private fromRow(row: number): StoredDoc {
    const c = this.cols!, f = c.flags[row];
    let sections: PackedSections | undefined, sectionAt: Int32Array | undefined;
    if (f & F_SECTIONS) {
      sections = {
        count: c.sectionCount[row],
        headings: this.text(row, SEC_HEADINGS),
        anchors: this.text(row, SEC_ANCHORS),
      };
      if (f & F_SECTION_AT) {
        sectionAt = c.sectionAt.subarray(c.sectionFrom[row], c.sectionFrom[row + 1]);
      }
      // Bytes are checked whole by a checksum; this only keeps a bad row from misleading.
      if (!soundSections(sections)) sections = sectionAt = undefined;
    }
    // The keys addDoc gives, in its order (one object shape for both).
    return {
      id: this.text(row, ID),
      title: this.text(row, TITLE),
      description: f & F_DESCRIPTION ? this.text(row, DESCRIPTION) : undefined as unknown as string,
      headings: this.text(row, HEADINGS),
      body: this.rowBody(row),
      lang: this.text(row, LANG),
      sections,
      codeShare: f & F_CODE_SHARE ? c.codeShare[row] : undefined,
      accented: (f & F_ACCENTED) !== 0,
      sectionAt,
      digest: this.rowDigest(row),
    };
  }
}

/** What one document object holds, counted. */
function docBytes(d: StoredDoc, seen: Set<ArrayBufferLike>): number {
  let n = DOC_BYTES + stringBytes(d.id) + stringBytes(d.title) + stringBytes(d.description) +
    stringBytes(d.headings) + d.body.byteLength + d.digest.byteLength +
    (d.sectionAt ? bufferBytes(d.sectionAt, seen) : 0);
  if (d.sections) n += stringBytes(d.sections.headings) + stringBytes(d.sections.anchors);
  return n;
}

/** Documents made into columns between two yields of `toColumns` (a power of two). */
const DOCS_PER_STEP = 64;

/** Documents 0…n-1 (every one present) as columns, for a snapshot, in steps. */
export function* toColumns(
  docs: Iterable<[number, StoredDoc]>,
  n: number,
): Generator<void, DocColumns> {
  const flags = new Uint8Array(n), codeShare = new Float64Array(n);
  const sectionCount = new Uint32Array(n), sectionFrom = new Uint32Array(n + 1);
  const starts = new Uint32Array(n * TEXTS + 1), digests = new Uint8Array(n * DIGEST_BYTES);
  const bodyStarts = new Uint32Array(n + 1);
  const parts: Uint8Array[] = [], offsets: Int32Array[] = [], encoded: Uint8Array[] = [];
  const bodyParts: Uint8Array[] = [];
  let bytes = 0, bodyBytes = 0, sectionAts = 0, next = 0;
  const encode = (s: string) => {
    const b = encoder.encode(s);
    encoded.push(b);
    return b;
  };
  const add = (b: Uint8Array) => {
    parts.push(b);
    starts[++next] = bytes += b.length;
  };
  for (const [id, d] of docs) {
    if (id !== next / TEXTS) throw new Error("documents out of order");
    let f = 0;
    if (d.accented) f |= F_ACCENTED;
    if (d.codeShare !== undefined) [f, codeShare[id]] = [f | F_CODE_SHARE, d.codeShare];
    if (d.description !== undefined) f |= F_DESCRIPTION;
    for (const s of [d.id, d.title, d.description ?? "", d.headings, d.lang]) {
      add(encode(s));
    }
    add(encode(d.sections?.headings ?? ""));
    add(encode(d.sections?.anchors ?? ""));
    bodyParts.push(d.body);
    bodyStarts[id + 1] = bodyBytes += d.body.length;
    if (d.sections) {
      f |= F_SECTIONS;
      sectionCount[id] = d.sections.count;
      if (d.sectionAt) {
        if (d.sectionAt.length !== d.sections.count) throw new Error("sectionAt out of step");
        f |= F_SECTION_AT;
        offsets.push(d.sectionAt);
        sectionAts += d.sectionAt.length;
      }
    }
    sectionFrom[id + 1] = sectionAts;
    flags[id] = f;
    digests.set(d.digest, id * DIGEST_BYTES);
    if ((id & (DOCS_PER_STEP - 1)) === DOCS_PER_STEP - 1) yield;
  }
  if (next !== n * TEXTS) throw new Error("a document is missing");
  const text = new Uint8Array(bytes), sectionAt = new Int32Array(sectionAts);
  const arena = new Uint8Array(bodyBytes);
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    text.set(parts[i], at), at += parts[i].length;
    if (i % (DOCS_PER_STEP * TEXTS) === DOCS_PER_STEP * TEXTS - 1) yield;
  }
  for (let i = 0; i < n; i++) {
    arena.set(bodyParts[i], bodyStarts[i]);
    if ((i & (DOCS_PER_STEP - 1)) === DOCS_PER_STEP - 1) yield;
  }
  // The strings encoded here are copied: freed now (free_bytes.ts); the pages' bodies are kept.
  for (const p of encoded) freeBytes(p);
  at = 0;
  for (const o of offsets) sectionAt.set(o, at), at += o.length;
  const bodies = heldArena(arena);
  return {
    flags,
    codeShare,
    sectionCount,
    sectionFrom,
    sectionAt,
    starts,
    text,
    digests,
    bodyStarts,
    bodies,
  };
}

/** Whether columns read from bytes hold together (lengths, offsets in order and in range). */
export function soundColumns(c: DocColumns): boolean {
  const n = c.flags.length;
  if (c.codeShare.length !== n || c.sectionCount.length !== n) return false;
  if (c.digests.length !== n * DIGEST_BYTES) return false;
  if (c.sectionFrom.length !== n + 1 || c.starts.length !== n * TEXTS + 1) return false;
  if (c.starts[0] !== 0 || c.starts[n * TEXTS] !== c.text.length) return false;
  for (let i = 0; i < n * TEXTS; i++) if (c.starts[i] > c.starts[i + 1]) return false;
  const { bodyStarts, bodies } = c;
  if (bodyStarts.length !== n + 1 || bodyStarts[0] !== 0) return false;
  if (bodyStarts[n] !== bodies.byteLength) return false;
  if (c.sectionFrom[0] !== 0 || c.sectionFrom[n] !== c.sectionAt.length) return false;
  for (let r = 0; r < n; r++) {
    const k = c.sectionFrom[r + 1] - c.sectionFrom[r];
    if (k < 0 || (c.flags[r] & F_SECTION_AT ? k !== c.sectionCount[r] : k !== 0)) return false;
    if (!(c.flags[r] & F_SECTIONS) && c.sectionCount[r]) return false;
    if (bodyStarts[r] > bodyStarts[r + 1]) return false;
    if (!soundText(bodies.read(bodyStarts[r], bodyStarts[r + 1]))) return false;
  }
  return true;
}
