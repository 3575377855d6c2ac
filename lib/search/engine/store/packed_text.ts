/**
 * A page's text as an index keeps it: UTF-8, deflated in blocks of about 8 KiB (0.4 of its
 * size on documentation), so a read inflates only the blocks it needs. Text is 45 % of what
 * a site's index would hold; a search reads it only for the pages it shows: the first 8,000
 * characters (one or two blocks, ~20 µs each), and the stretch around a matching heading
 * further on. Blocks end between characters, and each knows how many it holds, so a stretch
 * is found without reading what comes before it. Short text is kept as it is.
 *
 * Layout: a kind byte; RAW: the UTF-8 after it; DEFLATED: three bytes of padding, the UTF-8
 * length (u32), the number of blocks (u32), then per block where its data ends (counted from
 * the end of this table) and how many UTF-16 units the text holds up to its end (u32 each),
 * then the blocks (raw deflate).
 */
import zlib from "node:zlib";
import { type Turned, Turns } from "./second_chance.ts";

const { inflateRawSync } = zlib;

const RAW = 0, DEFLATED = 1;
/** UTF-8 bytes per block (fewer where a character would be cut). */
const BLOCK = 8192;
/** Shorter text is kept as it is: deflate would save little and cost a call per read. */
const MIN_DEFLATED = 512;
const HEAD = 12;

import { freeBytes } from "./free_bytes.ts";
import { deflateBlock, reusableHandle } from "./block_deflate.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const u32 = (b: Uint8Array, at: number) =>
  (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;

function setU32(b: Uint8Array, at: number, v: number) {
  b[at] = v & 0xff;
  b[at + 1] = (v >>> 8) & 0xff;
  b[at + 2] = (v >>> 16) & 0xff;
  b[at + 3] = v >>> 24;
}

/** Text packed for keeping. */
export function packText(text: string): Uint8Array {
  const utf8 = encoder.encode(text);
  if (utf8.length < MIN_DEFLATED) {
    const out = new Uint8Array(1 + utf8.length);
    out[0] = RAW;
    out.set(utf8, 1);
    freeBytes(utf8);
    return out;
  }
  const blocks: Uint8Array[] = [], units: number[] = [];
  let chars = 0;
  for (let at = 0; at < utf8.length;) {
    let end = Math.min(utf8.length, at + BLOCK);
    while (end < utf8.length && (utf8[end] & 0xc0) === 0x80) end--;
    const part = utf8.subarray(at, end);
    blocks.push(deflateBlock(part));
    units.push(chars += utf16Length(part));
    at = end;
  }
  const table = HEAD + 8 * blocks.length;
  const out = new Uint8Array(table + blocks.reduce((n, b) => n + b.length, 0));
  out[0] = DEFLATED;
  setU32(out, 4, utf8.length);
  setU32(out, 8, blocks.length);
  let end = 0;
  blocks.forEach((b, i) => {
    out.set(b, table + end);
    setU32(out, HEAD + 8 * i, end += b.length);
    setU32(out, HEAD + 8 * i + 4, units[i]);
    freeBytes(b);
  });
  freeBytes(utf8);
  return out;
}

/** UTF-16 units of whole characters' UTF-8: one each, two for a four-byte one. */
function utf16Length(utf8: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < utf8.length; i++) {
    const b = utf8[i];
    if ((b & 0xc0) !== 0x80) n += b >= 0xf0 ? 2 : 1;
  }
  return n;
}

/** Whether packed text is sound to read (snapshots are checked whole; this is for a bad row). */
export function soundText(p: Uint8Array): boolean {
  if (p.length === 0) return false;
  if (p[0] === RAW) return true;
  if (p[0] !== DEFLATED || p.length < HEAD) return false;
  const blocks = u32(p, 8), table = HEAD + 8 * blocks;
  if (table > p.length || blocks === 0) return false;
  let end = 0, units = 0;
  for (let i = 0; i < blocks; i++) {
    const next = u32(p, HEAD + 8 * i), nextUnits = u32(p, HEAD + 8 * i + 4);
    if (next < end || nextUnits < units) return false;
    [end, units] = [next, nextUnits];
  }
  return table + end === p.length;
}

/** The text, or its first `maxChars` characters (UTF-16 units, as `slice` counts them). */
export function unpackText(p: Uint8Array, maxChars = Infinity): string {
  if (p[0] === RAW) return cut(decoder.decode(p.subarray(1)), maxChars);
  const blocks = u32(p, 8);
  let last = 0;
  while (last < blocks - 1 && unitsTo(p, last) < maxChars) last++;
  return cut(inflate(p, 0, last), maxChars);
}

/**
 * Characters of texts read for results shown kept in the process at most (~8 MB of UTF-8):
 * pages that answer many queries are shown again and again, and inflating one is most of
 * showing it. Those not shown for longest go first (second_chance.ts). Only what a result
 * needed of a page is kept (its start, often a few thousand characters), so more pages are.
 * What is kept is the inflated UTF-8 (the inflater's bytes, copied), outside V8's heap, and
 * decoded again at each read; only a text read KEEP_DECODED_AT times is kept decoded.
 * Strings kept outlive young collections and are copied twice: kept at once, they were most of
 * what the 200-site warm round promoted (24 of 41 MB). Kept from a second read, they were still
 * 4-5 MB of the heap after it (most pages there are shown two or three times); decoded at every
 * read, the same queries asked again in process ran 10 % slower (a decode is a runtime call).
 */
const KEPT_CHARS = 8_000_000;
/** Reads of a kept text from which it is kept decoded: a page shown again and again. */
const KEEP_DECODED_AT = 4;

interface Kept extends Turned {
  /** The packed text's length it was read from (a document's bytes are a new view per read). */
  packed: number;
  /** UTF-16 units of the whole text (so a text kept is not read to know it). */
  units: number;
  /** Its UTF-8 until it has been read KEEP_DECODED_AT times, then the text. */
  held: Uint8Array | string;
  /** Times it was read. */
  reads: number;
  /** Where it is kept. */
  map: Map<Place, Kept>;
  at: Place;
}

/**
 * What was read of each packed text, by what holds it (the buffer of an index's columns, made
 * once and never written, or the arena its bodies are kept in) and where in it: a document's
 * bytes are a new view (or copy) per read. A dropped index's texts are forgotten in their turn
 * (they count until then).
 */
const kept = new WeakMap<object, Map<Place, Kept>>();
/** The texts kept, in their turns to be forgotten; a forgotten one holds none of its text. */
const turns = new Turns<Kept>(KEPT_CHARS, (e) => {
  if (e.map.get(e.at) === e) e.map.delete(e.at);
  e.held = "";
});

/** Where a kept text is read from in its buffer: a prefix's offset, or a stretch's blocks too. */
type Place = number | string;

/**
 * A packed text a result reads, by its place: read only where what is kept of it does not
 * do (its bytes may be kept out of memory: body_arena.ts).
 */
export interface PackedSource {
  /** What it is read from (what a read of it is kept by), and where in that. */
  owner: object;
  at: number;
  /** Its bytes' length, known without reading them. */
  length: number;
  /** Its bytes: read at once, before any other source is read (they may be a reused buffer). */
  read(): Uint8Array;
}

/** A source of packed bytes in memory. */
export const sourceOf = (p: Uint8Array): PackedSource => ({
  owner: p.buffer,
  at: p.byteOffset,
  length: p.length,
  read: () => p,
});

/**
 * Characters read of a text at least: a result's description and the first chunk a snippet
 * is looked for in (presentation/highlight.ts) in one read.
 */
const FIRST_READ = 2_400;

/** A text read from its start only as far as asked. */
export interface TextPrefix {
  /** Its characters (UTF-16 units), at most the `maxChars` asked for. */
  readonly length: number;
  /** Its first characters: at least `n` (as far as it goes), at most `length`. */
  upTo(n: number): string;
}

/**
 * A packed text's first `maxChars` characters, inflated only as far as a reader asks
 * (`upTo`), and kept for the next result showing the page (by its place): a snippet near the
 * start needs a part of the first block, and the rest is never inflated. A page kept is not
 * read again; one that is not has its first FIRST_READ characters read at once (the bytes
 * are read once and not held).
 */
export function keptPrefix(src: PackedSource, maxChars: number): TextPrefix {
  let units = keptAt(src, src.at)?.units;
  // What was just read answers the reader first: decoding the kept bytes again for it was a
  // seventh of what the 200-site round's searches allocated (BENCHMARKS.md).
  let got = "";
  if (units === undefined) {
    const p = src.read();
    units = totalUnits(p);
    got = keep(src, src.at, FIRST_READ, units, () => readPrefix(p, FIRST_READ));
  }
  const length = Math.min(maxChars, units);
  got = cut(got, length);
  return {
    length,
    upTo(n: number) {
      const want = Math.min(n, length);
      if (got.length >= want) return got;
      const read = () => readPrefix(src.read(), Math.max(want, FIRST_READ));
      const text = keep(src, src.at, want, units, read);
      return got = cut(text, length);
    },
  };
}

/** UTF-16 units of a packed text. */
function totalUnits(p: Uint8Array): number {
  return p[0] === RAW ? utf16Length(p.subarray(1)) : unitsTo(p, u32(p, 8) - 1);
}

/** What is kept of the text of `src` read at `at`, if it is still what `src` holds. */
function keptAt(src: PackedSource, at: Place): Kept | undefined {
  const had = kept.get(src.owner)?.get(at);
  return had?.packed === src.length ? had : undefined;
}

/**
 * The text read at `at` in `src`, kept; `read` reads it when what is kept there is shorter
 * than `chars` characters (or was read from other bytes). `units`: the whole text's.
 */
function keep(
  src: PackedSource,
  at: Place,
  chars: number,
  units: number,
  read: () => string,
): string {
  let inBuffer = kept.get(src.owner);
  const had = inBuffer?.get(at);
  if (had?.packed === src.length && had.chars >= chars) {
    had.used = true;
    if (typeof had.held === "string") return had.held;
    if (++had.reads < KEEP_DECODED_AT) return decoder.decode(had.held);
    return had.held = decoder.decode(had.held);
  }
  decoded = null;
  const text = read();
  // The inflater's bytes of the text, copied, where it has them (encoding it again cost more).
  const bytes = decoded as Uint8Array | null; // set by read()
  const held = bytes ? bytes.slice() : encoder.encode(text);
  if (!inBuffer) kept.set(src.owner, inBuffer = new Map());
  if (had) turns.forget(had);
  const entry: Kept = {
    packed: src.length,
    units,
    held,
    reads: 1,
    used: false,
    live: true,
    chars: text.length,
    map: inBuffer,
    at,
  };
  inBuffer.set(at, entry);
  turns.add(entry);
  return text;
}

/**
 * A stretch of the text holding characters `from` to `to` (as far as the text goes): whole
 * blocks, so it may start before `from` (at `at`) and end after `to`. `shown`: read for a
 * result, kept as `keptPrefix` keeps text (by the source given, or where `p` is).
 */
export function textAround(
  p: Uint8Array,
  from: number,
  to: number,
  shown: boolean | PackedSource = false,
): { text: string; at: number } {
  if (p[0] === RAW) return { text: decoder.decode(p.subarray(1)), at: 0 };
  const blocks = u32(p, 8);
  let first = 0;
  while (first < blocks - 1 && unitsTo(p, first) <= from) first++;
  let last = first;
  while (last < blocks - 1 && unitsTo(p, last) < to) last++;
  const read = () => inflate(p, first, last);
  const src = shown === true ? sourceOf(p) : shown || undefined;
  const units = unitsTo(p, blocks - 1);
  const text = src ? keep(src, `${src.at}:${first}:${last}`, 0, units, read) : read();
  return { text, at: first ? unitsTo(p, first - 1) : 0 };
}

/**
 * The text's first `n` characters or more: whole blocks, and of the last only its start
 * (inflating stops when the output is full). Most of a block's cost is its start (its code
 * tables), so a short read saves less than its length, but keeps less too.
 */
function readPrefix(p: Uint8Array, n: number): string {
  if (p[0] === RAW) return decoder.decode(p.subarray(1));
  const blocks = u32(p, 8);
  let last = 0;
  while (last < blocks - 1 && unitsTo(p, last) < n) last++;
  const before = last ? unitsTo(p, last - 1) : 0, whole = unitsTo(p, last) - before;
  // A read of most of a block reads all of it.
  if (!reused || (n - before) * 4 >= whole * 3) return inflate(p, 0, last);
  const room = (last + 1) * BLOCK + 1;
  if (reused.out.length < room) reused.out = new Uint8Array(room);
  let written = 0;
  for (let i = 0; i < last; i++) written = inflateBlock(block(p, HEAD + 8 * blocks, i), written);
  return partBlock(block(p, HEAD + 8 * blocks, last), written, n - before, before) ??
    inflate(p, 0, last);
}

/**
 * The blocks inflated so far (`written` bytes of the reused buffer) and the start of one more
 * holding at least `chars` characters; null where the block ends before (not one of ours).
 */
function partBlock(data: Uint8Array, written: number, chars: number, before: number) {
  const { handle, state, failed, out } = reused!;
  failed.message = "";
  handle.reset();
  // A character is one UTF-8 byte or more: inflating stops when as many bytes are out, and
  // goes on (from where it stopped) while they hold fewer characters.
  let end = written, read = 0, room = chars + 64;
  for (;;) {
    room = Math.min(room, out.length - end);
    handle.writeSync(zlib.constants.Z_FINISH, data, read, data.length - read, out, end, room);
    if (failed.message) throw new Error(`packed text: ${failed.message}`);
    end += room - state[0];
    read = data.length - state[1];
    const bytes = out.subarray(0, charsEnd(out, written, end));
    const text = decoder.decode(bytes);
    const short = before + chars - text.length;
    if (short <= 0) {
      decoded = bytes;
      return text;
    }
    // Output left over: the block ended short of what its table says.
    if (state[0] > 0 || end - written > BLOCK) return null;
    room = short + 64;
  }
}

/** Where the last whole character of `out[from, to)` ends (a cut one is left out). */
function charsEnd(out: Uint8Array, from: number, to: number): number {
  let lead = to - 1;
  while (lead > from && (out[lead] & 0xc0) === 0x80) lead--;
  if (lead < from) return to;
  const b = out[lead], size = b < 0x80 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
  return lead + size <= to ? to : lead;
}

/** UTF-16 units of the text up to the end of block `i`. */
const unitsTo = (p: Uint8Array, i: number) => u32(p, HEAD + 8 * i + 4);

/** The text of blocks `first` to `last`: inflated side by side, decoded once (no joined copy). */
function inflate(p: Uint8Array, first: number, last: number): string {
  const table = HEAD + 8 * u32(p, 8);
  if (!reused) {
    let text = "";
    for (let i = first; i <= last; i++) text += decoder.decode(inflateRawSync(block(p, table, i)));
    return text;
  }
  const room = (last - first + 1) * BLOCK + 1;
  if (reused.out.length < room) reused.out = new Uint8Array(room);
  let written = 0;
  for (let i = first; i <= last; i++) written = inflateBlock(block(p, table, i), written);
  // Blocks end between characters: their bytes decode to the texts of each joined.
  decoded = reused.out.subarray(0, written);
  return decoder.decode(decoded);
}

/** Block `i`'s deflated bytes. */
const block = (p: Uint8Array, table: number, i: number) =>
  p.subarray(table + (i ? u32(p, HEAD + 8 * (i - 1)) : 0), table + u32(p, HEAD + 8 * i));

/**
 * One inflater reset for each block: `inflateRawSync` makes a stream, a native inflater and
 * its window per call, twice the cost of inflating 8 KiB. Where node:zlib's internals are not
 * as expected, each block is inflated the usual way.
 */
function inflater() {
  const reusable = reusableHandle(zlib.createInflateRaw());
  // Blocks inflate side by side into `out`, grown when a read needs more.
  return reusable && { ...reusable, out: new Uint8Array(2 * BLOCK + 1) };
}

const reused = inflater();

/**
 * The bytes the last read through `reused` decoded (a view of its buffer, good until the next
 * read); null when that read had none (a fallback, or no read yet).
 */
let decoded: Uint8Array | null = null;

/** Inflates one block into the reused buffer at `at`; returns where its bytes end there. */
function inflateBlock(block: Uint8Array, at: number): number {
  const { handle, state, failed, out } = reused!;
  failed.message = "";
  handle.reset();
  // The room beyond BLOCK shows a block that did not end.
  const room = Math.min(BLOCK + 1, out.length - at);
  handle.writeSync(zlib.constants.Z_FINISH, block, 0, block.length, out, at, room);
  if (failed.message) throw new Error(`packed text: ${failed.message}`);
  // state: [room left, input left]; a block longer than BLOCK is not one of ours.
  const written = room - state[0];
  if (state[1] !== 0 || written > BLOCK) {
    const whole = inflateRawSync(block);
    if (at + whole.length > out.length) {
      const grown = new Uint8Array(at + whole.length + BLOCK + 1);
      grown.set(out.subarray(0, at));
      reused!.out = grown;
    }
    reused!.out.set(whole, at);
    return at + whole.length;
  }
  return at + written;
}

const cut = (text: string, maxChars: number) =>
  maxChars < text.length ? text.slice(0, maxChars) : text;

/** UTF-8 bytes of the text packed. */
export function utf8Bytes(p: Uint8Array): number {
  return p[0] === RAW ? p.length - 1 : u32(p, 4);
}
