/**
 * A site's index as bytes, for snapshots in KV: the sealed postings and every column as
 * raw typed arrays, the documents' strings in two UTF-8 blobs (Latin-1 ones apart, so V8
 * keeps them at one byte a character), bodies as they are packed. Each field's terms and
 * the vocabulary's words are blocks as they are held (a field's terms one string, the
 * words one byte arena), so a load makes no string per word. A checksum covers everything
 * after the header; any damage, another version or another byte order throws.
 *
 * Layout: "SSDB", version, checksum, byte length (u32 each), then blocks, each a u32 byte
 * length and its bytes, padded to 8; the order of blocks is the order of `put` calls.
 */
import { Column, FIELDS, InvertedIndex } from "./postings.ts";
import { createSiteDb, seal, type SiteDb, type StoredDoc, WIDE } from "./site_db.ts";
import { type PackedSections, soundSections } from "./packed_sections.ts";
import { TRIGRAM_BYTES, Trigrams } from "./trigrams.ts";
import { TermTable } from "./term_table.ts";
import { Vocab } from "./vocab.ts";

/** Snapshots of another version are ignored (decodeSiteDb throws). */
export const CODEC_VERSION = 3;

const MAGIC = 0x42445353; // "SSDB" little-endian
const HEADER = 16;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * A 32-bit FNV-style hash over whole words in four interleaved lanes (four times the speed
 * of one), then the tail bytes. Each step is a bijection, so any one changed word shows.
 */
function checksum(bytes: Uint8Array, from: number): number {
  const words = (bytes.length - from) >>> 2;
  const v = new Uint32Array(bytes.buffer, bytes.byteOffset + from, words);
  const P = 0x01000193;
  let a = 0x811c9dc5 ^ bytes.length, b = 0x9e3779b9, c = 0x85ebca6b, d = 0xc2b2ae35;
  let i = 0;
  for (; i + 4 <= words; i += 4) {
    a = Math.imul(a ^ v[i], P);
    b = Math.imul(b ^ v[i + 1], P);
    c = Math.imul(c ^ v[i + 2], P);
    d = Math.imul(d ^ v[i + 3], P);
  }
  for (; i < words; i++) a = Math.imul(a ^ v[i], P);
  for (let k = from + words * 4; k < bytes.length; k++) a = Math.imul(a ^ bytes[k], P);
  let h = a ^ ((b << 8) | (b >>> 24)) ^ ((c << 16) | (c >>> 16)) ^ ((d << 24) | (d >>> 8));
  h ^= h >>> 16;
  return Math.imul(h, 0x85ebca6b) >>> 0;
}

/** Flags per document slot. */
const PRESENT = 1,
  BYTES_BODY = 2,
  ACCENTED = 4,
  SECTIONS = 8,
  SECTION_AT = 16,
  CODE_SHARE = 32,
  DESCRIPTION = 64;

const STRS_CHUNK = 256;

class Writer {
  blocks: Uint8Array[] = [];
  /** Strings in order; Latin-1 ones in one blob, the rest in another. */
  narrow: string[] = [];
  wide: string[] = [];
  /** Per string: its length in UTF-16 units, negative when it is in the wide blob. */
  lengths: number[] = [];

  put(a: ArrayBufferView) {
    this.blocks.push(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  }

  str(s: string) {
    if (WIDE.test(s)) {
      this.wide.push(s);
      this.lengths.push(-s.length - 1);
    } else {
      this.narrow.push(s);
      this.lengths.push(s.length);
    }
  }

  /** Many strings, in chunks tested together first: most are Latin-1 on most sites. */
  strs(list: string[]) {
    for (let at = 0; at < list.length; at += STRS_CHUNK) {
      const chunk = list.slice(at, at + STRS_CHUNK);
      const joined = chunk.join("");
      if (WIDE.test(joined)) {
        for (const s of chunk) this.str(s);
        continue;
      }
      this.narrow.push(joined);
      for (const s of chunk) this.lengths.push(s.length);
    }
  }

  finish(): Uint8Array {
    const parts = [
      Int32Array.from(this.lengths),
      encoder.encode(this.narrow.join("")),
      encoder.encode(this.wide.join("")),
      ...this.blocks,
    ];
    let size = HEADER;
    for (const p of parts) size += 4 + p.byteLength + ((8 - ((4 + p.byteLength) & 7)) & 7);
    const out = new Uint8Array(size);
    const dv = new DataView(out.buffer);
    let at = HEADER;
    for (const p of parts) {
      dv.setUint32(at, p.byteLength, true);
      out.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), at + 4);
      at += 4 + p.byteLength + ((8 - ((4 + p.byteLength) & 7)) & 7);
    }
    dv.setUint32(0, MAGIC, true);
    dv.setUint32(4, CODEC_VERSION, true);
    dv.setUint32(12, size, true);
    dv.setUint32(8, checksum(out, HEADER), true);
    return out;
  }
}

/** The bytes of a site's index (seals it first: a logical no-op). */
export function encodeSiteDb(db: SiteDb): Uint8Array {
  seal(db);
  const w = new Writer();
  const { index } = db;
  const n = index.slots;
  // Documents: flags and numbers per slot, strings in order, bodies in one blob.
  const flags = new Uint8Array(n), codeShare = new Float64Array(n);
  const sectionCount = new Uint32Array(n), bodyLength = new Uint32Array(n);
  const sectionAt: Int32Array[] = [];
  const strings: string[] = [];
  let sectionCountAll = 0;
  const bodies: Uint8Array[] = [];
  let bodyBytes = 0;
  for (let id = 0; id < n; id++) {
    const d = db.docs[id];
    if (!d) continue;
    let f = PRESENT;
    const body = typeof d.body === "string" ? encoder.encode(d.body) : d.body;
    if (typeof d.body !== "string") f |= BYTES_BODY;
    bodies.push(body);
    bodyLength[id] = body.length;
    bodyBytes += body.length;
    if (d.accented) f |= ACCENTED;
    if (d.codeShare !== undefined) [f, codeShare[id]] = [f | CODE_SHARE, d.codeShare];
    if (d.description !== undefined) f |= DESCRIPTION;
    strings.push(d.id, d.title, d.description ?? "", d.headings, d.lang);
    if (d.sections) {
      f |= SECTIONS;
      sectionCount[id] = d.sections.count;
      strings.push(d.sections.headings, d.sections.anchors);
      if (d.sectionAt) {
        f |= SECTION_AT;
        if (d.sectionAt.length !== d.sections.count) throw new Error("sectionAt out of step");
        sectionAt.push(d.sectionAt);
        sectionCountAll += d.sectionAt.length;
      }
    }
    flags[id] = f;
  }
  w.strs(strings);
  const blob = concat(bodies, new Uint8Array(bodyBytes));
  w.put(flags);
  w.put(codeShare);
  w.put(sectionCount);
  w.put(concat(sectionAt, new Int32Array(sectionCountAll)));
  w.put(bodyLength);
  w.put(blob);
  // Postings and lengths per field.
  for (const f of FIELDS) {
    const p = index.fields[f];
    // Terms are letters and digits (never a lone surrogate): UTF-8 gives them back as they are.
    w.put(encoder.encode(p.table.blob));
    w.put(p.table.starts);
    w.put(p.offsets);
    w.put(p.ids);
    w.put(p.tfs);
    const lengths = index.lengths[f].data;
    w.put(lengths.subarray(0, Math.min(n, lengths.length)));
  }
  w.put(Float64Array.from(FIELDS, (f) => index.totals[f]));
  // Vocabulary, alphabet, trigrams, languages, priors.
  // The vocabulary's table slot by slot, and its words' bytes.
  const v = db.vocab.parts();
  w.put(Uint32Array.of(v.used));
  w.put(v.arena.subarray(0, v.used));
  w.put(v.starts);
  w.put(v.lens);
  w.put(Uint32Array.from(v.long.keys()));
  w.put(Uint32Array.from(v.long.values()));
  w.put(v.counts);
  w.str([...db.alphabet].join(""));
  w.put(db.trigrams.bits);
  const langCounts = Uint32Array.from(db.langs.values());
  for (const l of db.langs.keys()) w.str(l);
  w.put(langCounts);
  w.put(Uint32Array.from(db.prior.keys()));
  w.put(Float64Array.from(db.prior.values()));
  return w.finish();
}

const fail = (why: string): never => {
  throw new Error(`corrupt index snapshot: ${why}`);
};

class Reader {
  private at = HEADER;
  private strings: string[] = [];
  private next = 0;

  constructor(private bytes: Uint8Array) {
    const lengths = new Int32Array(this.raw().slice().buffer);
    const narrow = decoder.decode(this.raw()), wide = decoder.decode(this.raw());
    const strings = this.strings = new Array<string>(lengths.length);
    let a = 0, b = 0;
    for (let i = 0; i < lengths.length; i++) {
      const len = lengths[i];
      if (len >= 0) strings[i] = narrow.slice(a, a += len);
      else strings[i] = wide.slice(b, b -= len + 1);
    }
    if (a !== narrow.length || b !== wide.length) fail("string lengths");
  }

  /** The next block's bytes (a view into the snapshot). */
  raw(): Uint8Array {
    const { bytes } = this;
    if (this.at + 4 > bytes.length) fail("truncated");
    const len = new DataView(bytes.buffer, bytes.byteOffset + this.at, 4).getUint32(0, true);
    const from = this.at + 4;
    if (from + len > bytes.length) fail("block past the end");
    this.at = from + len + ((8 - ((4 + len) & 7)) & 7);
    return bytes.subarray(from, from + len);
  }

  /** The next block as its own typed array of `n` elements (or any number when n < 0). */
  u32(n = -1): Uint32Array {
    return this.typed(Uint32Array, n);
  }

  typed<T extends Uint32Array | Int32Array | Float64Array | Uint8Array>(
    Type: { new (b: ArrayBuffer): T; BYTES_PER_ELEMENT: number },
    n: number,
  ): T {
    const raw = this.raw();
    if (raw.length % Type.BYTES_PER_ELEMENT) fail("block size");
    if (n >= 0 && raw.length !== n * Type.BYTES_PER_ELEMENT) fail("block length");
    return new Type(raw.slice().buffer);
  }

  /** The next block's UTF-8 as its own flat string (never a slice of a larger one). */
  text(): string {
    return decoder.decode(this.raw());
  }

  str(): string {
    if (this.next >= this.strings.length) fail("too few strings");
    return this.strings[this.next++];
  }

  end() {
    if (this.next !== this.strings.length) fail("strings left over");
    if (this.at !== this.bytes.length) fail("bytes left over");
  }
}

/** A site's index from its bytes; throws on another version or any damage. */
export function decodeSiteDb(bytes: Uint8Array): SiteDb {
  if (bytes.length < HEADER) fail("too short");
  // Typed arrays need their elements aligned.
  if (bytes.byteOffset % 8) bytes = bytes.slice();
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  if (dv.getUint32(0, true) !== MAGIC) fail("not an index snapshot (or another byte order)");
  const version = dv.getUint32(4, true);
  if (version !== CODEC_VERSION) {
    throw new Error(`index snapshot version ${version}, not ${CODEC_VERSION}`);
  }
  if (dv.getUint32(12, true) !== bytes.length) fail("length");
  if (dv.getUint32(8, true) !== checksum(bytes, HEADER)) fail("checksum");
  const r = new Reader(bytes);
  const flags = r.typed(Uint8Array, -1);
  const n = flags.length;
  const codeShare = r.typed(Float64Array, n), sectionCount = r.u32(n);
  const sectionAt = r.typed(Int32Array, -1), bodyLength = r.u32(n);
  // One copy of the packed bodies: a document's bytes are a view into it (a replaced page's
  // bytes stay until the index is rebuilt). Bodies kept as text are decoded from the block.
  const blob = r.raw();
  let packedBytes = 0;
  for (let id = 0; id < n; id++) if (flags[id] & BYTES_BODY) packedBytes += bodyLength[id];
  const packed = new Uint8Array(packedBytes);
  let packedAt = 0;
  const index = new InvertedIndex();
  const db = createSiteDb(index);
  const docs: StoredDoc[] = db.docs = new Array(n);
  let bodyAt = 0, atAt = 0;
  for (let id = 0; id < n; id++) {
    const f = flags[id];
    if (!(f & PRESENT)) fail("hole in documents");
    const docId = r.str(), title = r.str(), description = r.str(), headings = r.str();
    const lang = r.str();
    if (bodyAt + bodyLength[id] > blob.length) fail("bodies");
    const bytes = blob.subarray(bodyAt, bodyAt += bodyLength[id]);
    let body: string | Uint8Array;
    if (f & BYTES_BODY) {
      packed.set(bytes, packedAt);
      body = packed.subarray(packedAt, packedAt += bytes.length);
    } else body = decoder.decode(bytes);
    let sections: PackedSections | undefined, at: Int32Array | undefined;
    if (f & SECTIONS) {
      sections = { count: sectionCount[id], headings: r.str(), anchors: r.str() };
      if (!soundSections(sections)) fail("sections");
      if (f & SECTION_AT) {
        if (atAt + sections.count > sectionAt.length) fail("section offsets");
        at = sectionAt.subarray(atAt, atAt += sections.count);
      }
    }
    // The keys addDoc gives, in its order (one object shape for both).
    const d: StoredDoc = {
      id: docId,
      title,
      description: f & DESCRIPTION ? description : undefined as unknown as string,
      headings,
      body,
      lang,
      sections,
      codeShare: f & CODE_SHARE ? codeShare[id] : undefined,
      accented: (f & ACCENTED) !== 0,
      sectionAt: at,
    };
    docs[id] = d;
    if (db.byId.has(docId)) fail("duplicate document");
    db.byId.set(docId, id);
  }
  if (bodyAt !== blob.length || atAt !== sectionAt.length) fail("documents");
  index.slots = n;
  index.dead = new Uint8Array(Math.max(64, n));
  for (const f of FIELDS) {
    const p = index.fields[f];
    const blob = r.text(), starts = r.u32();
    const count = starts.length - 1;
    p.table = new TermTable(blob, starts);
    if (count < 0 || !p.table.valid()) fail("terms out of order");
    p.offsets = r.u32(count + 1);
    p.ids = r.u32();
    p.tfs = r.u32(p.ids.length);
    if (p.offsets[0] !== 0 || p.offsets[count] !== p.ids.length) fail("offsets");
    for (let i = 0; i < count; i++) if (p.offsets[i] >= p.offsets[i + 1]) fail("offsets");
    for (let i = 0; i < p.ids.length; i++) if (p.ids[i] >= n) fail("document id");
    const lengths = r.u32();
    if (lengths.length > n) fail("lengths");
    index.lengths[f] = new Column(lengths);
  }
  const totals = r.typed(Float64Array, FIELDS.length);
  FIELDS.forEach((f, i) => index.totals[f] = totals[i]);
  const [used] = r.u32(1), arena = r.typed(Uint8Array, used);
  const starts = r.u32(), lens = r.typed(Uint8Array, starts.length);
  const longSlots = r.u32(), longLengths = r.u32(longSlots.length);
  const long = new Map<number, number>();
  for (let i = 0; i < longSlots.length; i++) long.set(longSlots[i], longLengths[i]);
  const counts = r.u32(starts.length);
  if (starts.length & (starts.length - 1) || starts.length < 2) fail("vocabulary size");
  try {
    db.vocab = new Vocab(starts.length, { arena, used, starts, lens, long, counts });
  } catch {
    fail("vocabulary slot");
  }
  for (const c of r.str()) db.alphabet.add(c);
  db.trigrams = new Trigrams(r.typed(Uint8Array, TRIGRAM_BYTES));
  const langCounts = r.u32();
  for (let i = 0; i < langCounts.length; i++) db.langs.set(r.str(), langCounts[i]);
  const priorIds = r.u32(), priors = r.typed(Float64Array, priorIds.length);
  for (let i = 0; i < priorIds.length; i++) {
    if (priorIds[i] >= n) fail("prior");
    db.prior.set(priorIds[i], priors[i]);
  }
  r.end();
  return db;
}

/** The parts one after another in `into` (sized to hold them all). */
function concat<T extends Uint8Array | Int32Array>(parts: T[], into: T): T {
  let at = 0;
  for (const part of parts) into.set(part, at), at += part.length;
  return into;
}
