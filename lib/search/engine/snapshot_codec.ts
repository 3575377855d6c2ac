/**
 * A site's index as bytes, for snapshots in KV, in the form it is searched in: the sealed
 * postings, the documents' columns (doc_store.ts) and the vocabulary as raw typed arrays.
 * A decoded index reads them in place, as views of the bytes it was given: a load copies
 * nothing and makes no object per page or word, and the index holds one buffer, its terms
 * included. A checksum covers everything after the header; any damage, another version or
 * another byte order throws.
 *
 * Layout: "SSDB", version, checksum, byte length (u32 each), then blocks, each a u32 byte
 * length, four bytes of padding and its bytes, padded to 8 (so every block starts 8-aligned
 * for any typed array); the order of blocks is the order of `put` calls. The pages' packed
 * bodies are the last block, so a host that keeps them out of memory (`keepBodies`) holds
 * the rest without them.
 */
import { Column, FIELDS, InvertedIndex } from "./store/postings.ts";
import { createSiteDb, seal, type SiteDb } from "./store/site_db.ts";
import { type DocColumns, DocStore, soundColumns, toColumns } from "./store/doc_store.ts";
import { DIGEST_BYTES } from "./store/text_digest.ts";
import { TRIGRAM_BYTES, Trigrams } from "./analysis/trigrams.ts";
import { TermTable } from "./store/term_table.ts";
import { Vocab } from "./store/vocab.ts";
import { adoptOrder, packedWords, wideOrder } from "./store/word_order.ts";
import { FilterPostings } from "./store/filter_postings.ts";
import type { PassageBlocks } from "./store/passage_blocks.ts";
import { type BodyArena, heldArena } from "./store/body_arena.ts";

/**
 * Snapshots of another version are ignored (decodeSiteDb throws), and the index is built
 * from the pages again. 5: the filters' bitsets. 6: the vocabulary's typo filter and order
 * (word_filter.ts, word_order.ts), so a load needs no pass to make them. 7: each page's text
 * digest (doc_store.ts), which the caches shared by every site's indexes are keyed by.
 * 8: each filter value's documents as a list of ids or a bitset, the shorter (doc_set.ts).
 * 9: each field's terms as UTF-8 with byte starts, read in place (term_table.ts); the
 * trigram bitmap at 43³ bits rather than 64³ (trigrams.ts). 10: the pages' bodies in a block
 * of their own, the last (doc_store.ts `bodies`).
 */
export const CODEC_VERSION = 10;

const MAGIC = 0x42445353; // "SSDB" little-endian
/** Long pages' passages (PassageBlocks), framed the same way under their own magic and version. */
const PASSAGES_MAGIC = 0x41505353; // "SSPA"
const PASSAGES_VERSION = 1;
/**
 * Stated names mined from the pages (query/stated.ts), one UTF-8 block under its own magic.
 * 2: lines of JSON, parsed a line at a time; 1 (one JSON line) still loads as one part.
 */
const STATED_MAGIC = 0x54535353; // "SSST"
const STATED_VERSION = 2;
const STATED_READ = [1, 2];
const HEADER = 16;

import { freeBytes } from "./store/free_bytes.ts";
import { copying, runSteps } from "./steps.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * A 32-bit FNV-style hash over whole words in four interleaved lanes (four times the speed
 * of one), then the tail bytes. Each step is a bijection, so any one changed word shows.
 * In steps: it yields after each `CHECKSUM_STEP_WORDS` words.
 */
function* checksumSteps(bytes: Uint8Array, from: number): Generator<void, number> {
  const words = (bytes.length - from) >>> 2;
  const v = new Uint32Array(bytes.buffer, bytes.byteOffset + from, words);
  const P = 0x01000193;
  let a = 0x811c9dc5 ^ bytes.length, b = 0x9e3779b9, c = 0x85ebca6b, d = 0xc2b2ae35;
  let i = 0;
  while (i + 4 <= words) {
    const end = Math.min(words - ((words - i) & 3), i + CHECKSUM_STEP_WORDS);
    for (; i < end; i += 4) {
      a = Math.imul(a ^ v[i], P);
      b = Math.imul(b ^ v[i + 1], P);
      c = Math.imul(c ^ v[i + 2], P);
      d = Math.imul(d ^ v[i + 3], P);
    }
    if (i + 4 <= words) yield;
  }
  for (; i < words; i++) a = Math.imul(a ^ v[i], P);
  for (let k = from + words * 4; k < bytes.length; k++) a = Math.imul(a ^ bytes[k], P);
  let h = a ^ ((b << 8) | (b >>> 24)) ^ ((c << 16) | (c >>> 16)) ^ ((d << 24) | (d >>> 8));
  h ^= h >>> 16;
  return Math.imul(h, 0x85ebca6b) >>> 0;
}

/** Words a checksum reads between two yields (a multiple of 4: 4 MB). */
const CHECKSUM_STEP_WORDS = 1 << 20;

const checksum = (bytes: Uint8Array, from: number) => runSteps(checksumSteps(bytes, from));

/** Bytes before a block's data: its length and padding, so the data is 8-aligned. */
const BLOCK_HEAD = 8;
const padded = (len: number) => len + ((8 - (len & 7)) & 7);

class Writer {
  blocks: Uint8Array[] = [];
  /** Blocks made for the snapshot alone: freed once copied (free_bytes.ts). */
  private made: Uint8Array[] = [];

  constructor(private magic = MAGIC, private version = CODEC_VERSION) {}

  put(a: ArrayBufferView) {
    this.blocks.push(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  }

  /** Puts bytes made only to be written here (never the index's own arrays). */
  putMade(a: ArrayBufferView) {
    this.put(a);
    this.made.push(this.blocks[this.blocks.length - 1]);
  }

  /** The framed bytes, in steps (the copies' and the checksum's). */
  *finish(): Generator<void, Uint8Array<ArrayBuffer>> {
    let size = HEADER;
    for (const p of this.blocks) size += BLOCK_HEAD + padded(p.byteLength);
    const out = new Uint8Array(size);
    const dv = new DataView(out.buffer);
    let at = HEADER;
    for (const p of this.blocks) {
      dv.setUint32(at, p.byteLength, true);
      yield* copying(out, p, at + BLOCK_HEAD);
      at += BLOCK_HEAD + padded(p.byteLength);
    }
    dv.setUint32(0, this.magic, true);
    dv.setUint32(4, this.version, true);
    dv.setUint32(12, size, true);
    dv.setUint32(8, yield* checksumSteps(out, HEADER), true);
    for (const m of this.made.splice(0)) freeBytes(m);
    return out;
  }
}

/** The bytes of a site's index (seals it first: a logical no-op). */
export function encodeSiteDb(db: SiteDb): Uint8Array {
  return runSteps(encodingSiteDb(db));
}

/**
 * `encodeSiteDb` in steps, yielding between pieces of its work (for 2,000 pages the longest
 * is the seal's or the vocabulary's packing, ~10-15 ms; the whole took ~110-150 ms in one go).
 * Nothing may change `db` until they are done; searches may read it between them.
 */
export function* encodingSiteDb(db: SiteDb): Generator<void, Uint8Array<ArrayBuffer>> {
  seal(db);
  yield;
  const w = new Writer();
  const { index } = db;
  const n = index.slots;
  const c = yield* toColumns(db.docs.entries(), n);
  for (const a of [c.flags, c.codeShare, c.sectionCount, c.sectionFrom, c.sectionAt]) w.putMade(a);
  w.putMade(c.starts);
  w.putMade(c.text);
  w.putMade(c.digests);
  w.putMade(c.bodyStarts);
  // Postings and lengths per field.
  for (const f of FIELDS) {
    const p = index.fields[f];
    // The terms' UTF-8 and where each starts: a loaded table reads them in place.
    w.put(p.table.bytes);
    w.put(p.table.starts);
    w.put(p.offsets);
    w.put(p.ids);
    w.put(p.tfs);
    const lengths = index.lengths[f].data;
    w.put(lengths.subarray(0, Math.min(n, lengths.length)));
  }
  w.put(Float64Array.from(FIELDS, (f) => index.totals[f]));
  // The vocabulary's table slot by slot (packed), and its words' bytes.
  yield;
  const { packed, order } = yield* packedWords(db.vocab), v = packed.parts();
  w.put(Uint32Array.of(v.used));
  w.put(v.arena.subarray(0, v.used));
  w.put(v.starts);
  w.put(v.lens);
  w.put(Uint32Array.from(v.long.keys()));
  w.put(Uint32Array.from(v.long.values()));
  w.put(v.counts);
  w.put(v.filter!);
  w.put(order);
  w.put(db.trigrams.bits);
  w.put(Uint32Array.from(db.prior.keys()));
  w.put(Float64Array.from(db.prior.values()));
  // The few small things, as JSON: the alphabet and the languages.
  // Filters: names and values as JSON (with the alphabet and languages), every value's
  // documents as a list or a bitset (filter_postings.ts).
  const filters = db.filters.encode(n);
  w.put(filters.words);
  w.putMade(encoder.encode(JSON.stringify({
    alphabet: [...db.alphabet],
    langs: [...db.langs],
    filters: filters.names,
  })));
  // Last: a host that keeps bodies elsewhere cuts them off (decodeSiteDb `keepBodies`).
  w.putMade(c.bodies.read(0, c.bodies.byteLength));
  yield;
  return yield* w.finish();
}

const fail = (why: string): never => {
  throw new Error(`corrupt index snapshot: ${why}`);
};

class Reader {
  private at = HEADER;

  constructor(private bytes: Uint8Array) {}

  /** The next block's bytes (a view into the snapshot). */
  raw(): Uint8Array {
    const len = this.peek(), from = this.at + BLOCK_HEAD;
    if (from + len > this.bytes.length) fail("block past the end");
    this.at = from + padded(len);
    return this.bytes.subarray(from, from + len);
  }

  /** The byte length of the next block. */
  peek(): number {
    if (this.at + BLOCK_HEAD > this.bytes.length) fail("truncated");
    return new DataView(this.bytes.buffer, this.bytes.byteOffset + this.at, 4).getUint32(0, true);
  }

  /** The next block as a Uint32Array of `n` elements (or any number when n < 0), in place. */
  u32(n = -1): Uint32Array {
    return this.typed(Uint32Array, n);
  }

  /** The next block as a typed array of `n` elements (any number when n < 0): a view, not a copy. */
  typed<T extends Uint32Array | Int32Array | Float64Array | Uint16Array | Uint8Array>(
    Type: { new (b: ArrayBufferLike, at: number, n: number): T; BYTES_PER_ELEMENT: number },
    n: number,
  ): T {
    const raw = this.raw();
    if (raw.length % Type.BYTES_PER_ELEMENT) fail("block size");
    if (n >= 0 && raw.length !== n * Type.BYTES_PER_ELEMENT) fail("block length");
    return new Type(raw.buffer, raw.byteOffset, raw.length / Type.BYTES_PER_ELEMENT);
  }

  /** The next block's UTF-8 as its own flat string. */
  text(): string {
    return decoder.decode(this.raw());
  }

  end() {
    if (this.at !== this.bytes.length) fail("bytes left over");
  }
}

/** Checks a framed block list's header (one of `expected` versions) and checksum; its bytes, 8-aligned. */
function opened(bytes: Uint8Array, magic: number, ...expected: number[]): Uint8Array {
  if (bytes.length < HEADER) fail("too short");
  // Typed arrays need their elements aligned.
  if (bytes.byteOffset % 8) bytes = bytes.slice();
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  if (dv.getUint32(0, true) !== magic) fail("not an index snapshot (or another byte order)");
  const version = dv.getUint32(4, true);
  if (!expected.includes(version)) {
    throw new Error(`index snapshot version ${version}, not ${expected.join(" or ")}`);
  }
  if (dv.getUint32(12, true) !== bytes.length) fail("length");
  if (dv.getUint32(8, true) !== checksum(bytes, HEADER)) fail("checksum");
  return bytes;
}

/** The byte length the header of encoded bytes states (what follows is not theirs). */
export function encodedLength(bytes: Uint8Array): number {
  if (bytes.length < HEADER) fail("too short");
  return new DataView(bytes.buffer, bytes.byteOffset, HEADER).getUint32(12, true);
}

/** The bytes of long pages' passages, checksummed like an index. */
export function encodePassages(p: PassageBlocks): Uint8Array<ArrayBuffer> {
  const w = new Writer(PASSAGES_MAGIC, PASSAGES_VERSION);
  for (const a of [p.ids, p.counts, p.from, p.hashes, p.at, p.nameFrom, p.names]) w.put(a);
  return runSteps(w.finish());
}

/** Passages from their bytes (views of them); throws on another version or any damage. */
export function decodePassages(bytes: Uint8Array): PassageBlocks {
  const r = new Reader(opened(bytes, PASSAGES_MAGIC, PASSAGES_VERSION));
  const ids = r.u32(), n = ids.length;
  const counts = r.typed(Uint16Array, n), from = r.u32(n + 1);
  const hashes = r.u32(from[n]), at = r.typed(Uint16Array, from[n]);
  const nameFrom = r.u32(n + 1), names = r.typed(Uint8Array, nameFrom[n]);
  r.end();
  if (from[0] !== 0 || nameFrom[0] !== 0) fail("passages");
  for (let i = 0; i < n; i++) {
    if (from[i] > from[i + 1] || nameFrom[i] > nameFrom[i + 1]) fail("passages");
  }
  return { ids, counts, from, hashes, at, nameFrom, names };
}

/** Stated names' bytes (lines of JSON, opaque here), framed and checksummed like an index. */
export function encodeStated(json: Uint8Array): Uint8Array<ArrayBuffer> {
  const w = new Writer(STATED_MAGIC, STATED_VERSION);
  w.put(json);
  return runSteps(w.finish());
}

/** What `encodeStated` framed (a view); throws on another version or any damage. */
export function decodeStated(bytes: Uint8Array): Uint8Array {
  const r = new Reader(opened(bytes, STATED_MAGIC, ...STATED_READ));
  const json = r.typed(Uint8Array, -1);
  r.end();
  return json;
}

/** Where the last block of checked bytes starts (its head), and its data. */
function lastBlock(bytes: Uint8Array): { at: number; data: Uint8Array } {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  for (let at = HEADER; at + BLOCK_HEAD <= bytes.length;) {
    const len = dv.getUint32(at, true), next = at + BLOCK_HEAD + padded(len);
    if (next === bytes.length) {
      return { at, data: bytes.subarray(at + BLOCK_HEAD, at + BLOCK_HEAD + len) };
    }
    if (next > bytes.length) break;
    at = next;
  }
  return fail("block past the end");
}

/** How a decode holds the pages' bodies. */
export interface DecodeOptions {
  /**
   * Takes the bodies' bytes (checked) and answers where the index reads them from: given, the
   * index keeps a copy of the rest of the bytes, and holds nothing of those it was given.
   */
  keepBodies?: (bytes: Uint8Array) => BodyArena;
}

/** A site's index from its bytes; throws on another version or any damage. */
export function decodeSiteDb(bytes: Uint8Array, opts: DecodeOptions = {}): SiteDb {
  bytes = opened(bytes, MAGIC, CODEC_VERSION);
  const last = lastBlock(bytes);
  // With the bodies kept elsewhere, the rest is read in place from a copy that holds none of them.
  const head = opts.keepBodies ? bytes.slice(0, last.at) : bytes.subarray(0, last.at);
  return decodeParts(head, last.data, opts.keepBodies);
}

/** The index from its blocks before the bodies (`head`, checked) and the bodies' bytes. */
function decodeParts(
  head: Uint8Array,
  bodies: Uint8Array,
  keepBodies?: (bytes: Uint8Array) => BodyArena,
): SiteDb {
  const r = new Reader(head);
  const flags = r.typed(Uint8Array, -1);
  const n = flags.length;
  const cols: DocColumns = {
    flags,
    codeShare: r.typed(Float64Array, n),
    sectionCount: r.u32(n),
    sectionFrom: r.u32(n + 1),
    sectionAt: r.typed(Int32Array, -1),
    starts: r.u32(),
    text: r.typed(Uint8Array, -1),
    digests: r.typed(Uint8Array, n * DIGEST_BYTES),
    bodyStarts: r.u32(n + 1),
    bodies: heldArena(bodies),
  };
  // Checked while in memory, then handed to where they are kept.
  if (!soundColumns(cols)) fail("documents");
  if (keepBodies) cols.bodies = keepBodies(bodies);
  const index = new InvertedIndex();
  const db = createSiteDb(index, new DocStore(cols));
  index.slots = n;
  index.dead = new Uint8Array(Math.max(64, n));
  for (const f of FIELDS) {
    const p = index.fields[f];
    const terms = r.typed(Uint8Array, -1), starts = r.u32();
    const count = starts.length - 1;
    p.table = new TermTable(terms, starts);
    if (count < 0 || !p.table.valid()) fail("terms out of order");
    p.offsets = r.u32(count + 1);
    // Ids in 16 bits or 32, as the seal made them: told by the block's size.
    const postings = p.offsets[count];
    p.ids = r.peek() === postings * 2 ? r.typed(Uint16Array, postings) : r.u32(postings);
    p.tfs = r.typed(Uint16Array, postings);
    if (p.offsets[0] !== 0) fail("offsets");
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
  const counts = r.u32(starts.length), filter = r.u32();
  if (starts.length < 2) fail("vocabulary size");
  try {
    db.vocab = new Vocab(starts.length, { arena, used, starts, lens, long, counts, filter });
  } catch {
    fail("vocabulary slot");
  }
  const size = db.vocab.size;
  if (!adoptOrder(db.vocab, wideOrder(starts.length) ? r.u32(size) : r.typed(Uint16Array, size))) {
    fail("vocabulary order");
  }
  db.trigrams = new Trigrams(r.typed(Uint8Array, TRIGRAM_BYTES));
  const priorIds = r.u32(), priors = r.typed(Float64Array, priorIds.length);
  for (let i = 0; i < priorIds.length; i++) {
    if (priorIds[i] >= n) fail("prior");
    db.prior.set(priorIds[i], priors[i]);
  }
  const filterWords = r.u32();
  let small: { alphabet: string[]; langs: [string, number][]; filters: unknown };
  try {
    small = JSON.parse(r.text());
    for (const c of small.alphabet) db.alphabet.add(String(c));
    for (const [lang, count] of small.langs) db.langs.set(String(lang), Number(count));
  } catch {
    fail("languages");
  }
  db.filters = FilterPostings.decode(small!.filters, filterWords, n) ?? fail("filters");
  r.end();
  return db;
}

/** What a snapshot holds past the index: read off the search path, kept so a load reads nothing again. */
export interface Extras {
  passages?: PassageBlocks;
  stated?: Uint8Array;
}

/** The blocks after the codec's bytes: passages (none but stated names: empty ones), stated names. */
export function encodeTail({ passages, stated }: Extras): Uint8Array {
  if (!passages && !stated) return new Uint8Array();
  const p = encodePassages(passages ?? NO_PASSAGES);
  if (!stated) return p;
  const s = encodeStated(stated);
  const out = new Uint8Array(p.length + s.length);
  out.set(p);
  out.set(s, p.length);
  return out;
}

/** What `encodeTail` wrote (each block checked); throws on any damage. */
export function decodeTail(tail: Uint8Array): Extras {
  if (!tail.length) return {};
  const end = encodedLength(tail);
  return {
    passages: decodePassages(tail.subarray(0, end)),
    stated: end < tail.length ? decodeStated(tail.subarray(end)) : undefined,
  };
}

const NO_PASSAGES: PassageBlocks = {
  ids: new Uint32Array(),
  counts: new Uint16Array(),
  from: new Uint32Array(1),
  hashes: new Uint32Array(),
  at: new Uint16Array(),
  nameFrom: new Uint32Array(1),
  names: new Uint8Array(),
};
