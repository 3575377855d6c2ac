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
import { BLOCK, handOver, inflateTo, release } from "./inflater.ts";
import { keep, keepMore, keptAt, keptText } from "./kept_bytes.ts";

const { deflateRawSync } = zlib;

const RAW = 0, DEFLATED = 1;
/** Shorter text is kept as it is: deflate would save little and cost a call per read. */
const MIN_DEFLATED = 512;
const HEAD = 12;

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
    return out;
  }
  const blocks: Uint8Array[] = [], units: number[] = [];
  let chars = 0;
  for (let at = 0; at < utf8.length;) {
    let end = Math.min(utf8.length, at + BLOCK);
    while (end < utf8.length && (utf8[end] & 0xc0) === 0x80) end--;
    const part = utf8.subarray(at, end);
    blocks.push(deflateRawSync(part));
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
  });
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
 * (`upTo`), and kept for the next result showing the page (kept_bytes.ts): a snippet near
 * the start needs a part of the first block, and the rest is never inflated. A read further
 * on carries on from where the last one stopped, inflating nothing twice.
 */
export function keptPrefix(p: Uint8Array, maxChars: number): TextPrefix {
  if (p[0] === RAW) {
    const text = unpackText(p, maxChars); // nothing to inflate
    return { length: text.length, upTo: () => text };
  }
  const length = Math.min(maxChars, unitsTo(p, u32(p, 8) - 1));
  let got = "";
  return {
    length,
    upTo(n: number) {
      const want = Math.min(n, length);
      if (got.length >= want) return got;
      const text = prefixOf(p, want, got);
      return got = text.length > length ? text.slice(0, length) : text;
    },
  };
}

/** Where UTF-8 is gathered for a text kept: a prefix read on, or a stretch of blocks. */
let scratch = new Uint8Array(2 * BLOCK + 1);

/** `scratch` with room for `n` bytes, what it holds up to `keepTo` kept. */
function roomFor(n: number, keepTo: number): Uint8Array {
  if (scratch.length < n) {
    const grown = new Uint8Array(Math.max(n, 2 * scratch.length));
    grown.set(scratch.subarray(0, keepTo));
    scratch = grown;
  }
  return scratch;
}

/** Nothing kept yet: no bytes, from the first block. */
const NOTHING = { chars: 0, blk: 0, blkAt: 0, len: 0 } as const;

/**
 * The text's first `n` characters or more, from what is kept of it (`had`: what this reader
 * decoded already), read on where that is shorter: to FIRST_READ characters at least, the
 * last block's read stopped as soon as enough is out (most of a block's cost is its start,
 * its code tables, so a short read saves less than its length, but keeps less too).
 */
function prefixOf(p: Uint8Array, n: number, had: string): string {
  const k = keptAt(p.buffer, p.byteOffset, p.length);
  const blocks = u32(p, 8);
  if (k && (k.chars >= n || k.blk >= blocks)) {
    return k.chars === had.length ? had : keptText(k);
  }
  const from = k ?? NOTHING, target = Math.max(n, FIRST_READ);
  // What this reader decoded already is not decoded again; new bytes are decoded as they come.
  let text = had.length === from.chars ? had : k ? keptText(k) : "";
  let { blk, blkAt, len } = from;
  // The bytes read now, gathered to be kept.
  let buf: Uint8Array = scratch, got = 0;
  const reader = k ?? {};
  // Block by block; the last one only as far as needed, carried on while short.
  while (text.length < target && blk < blocks) {
    const data = block(p, HEAD + 8 * blocks, blk), inBlock = len - blkAt;
    const before = blk ? unitsTo(p, blk - 1) : 0, all = unitsTo(p, blk);
    // A read of most of a block reads all of it.
    const whole = all <= target || (target - before) * 4 >= (all - before) * 3;
    const upTo = whole ? BLOCK + 1 : inBlock + (target - text.length) + 64;
    const r = inflateTo(reader, blk, data, upTo);
    const end = r.ended ? r.end : charsEnd(r.bytes, inBlock, r.end);
    if (end > inBlock) {
      const more = r.bytes.subarray(inBlock, end);
      buf = roomFor(got + more.length, got);
      buf.set(more, got);
      text += decoder.decode(more);
      [got, len] = [got + more.length, len + more.length];
    }
    if (r.ended) [blk, blkAt] = [blk + 1, len];
  }
  const like = { chars: text.length, blk, blkAt, text: k?.text === undefined ? undefined : text };
  const kept = k
    ? keepMore(p.buffer, k, buf, got, like)
    : keep(p.buffer, p.byteOffset, p.length, buf, got, like);
  if (kept) handOver(reader, kept);
  else release();
  return text;
}

/**
 * A stretch of the text holding characters `from` to `to` (as far as the text goes): whole
 * blocks, so it may start before `from` (at `at`) and end after `to`. `shown`: read for a
 * result, kept as `keptPrefix` keeps text.
 */
export function textAround(
  p: Uint8Array,
  from: number,
  to: number,
  shown = false,
): { text: string; at: number } {
  if (p[0] === RAW) return { text: decoder.decode(p.subarray(1)), at: 0 };
  const blocks = u32(p, 8);
  let first = 0;
  while (first < blocks - 1 && unitsTo(p, first) <= from) first++;
  let last = first;
  while (last < blocks - 1 && unitsTo(p, last) < to) last++;
  const at = first ? unitsTo(p, first - 1) : 0;
  if (!shown) return { text: inflate(p, first, last), at };
  const place = `${p.byteOffset}:${first}:${last}`;
  const k = keptAt(p.buffer, place, p.length);
  if (k) return { text: keptText(k), at };
  const len = inflateInto(p, first, last);
  const chars = unitsTo(p, last) - at;
  keep(p.buffer, place, p.length, scratch, len, {
    chars,
    blk: last + 1,
    blkAt: len,
    text: undefined,
  });
  return { text: decoder.decode(scratch.subarray(0, len)), at };
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
  const len = inflateInto(p, first, last); // `scratch` may grow
  return decoder.decode(scratch.subarray(0, len));
}

/** The reader of whole blocks (none is carried on). */
const WHOLE = {};

/** Inflates blocks `first` to `last` side by side into `scratch`; returns where they end. */
function inflateInto(p: Uint8Array, first: number, last: number): number {
  const table = HEAD + 8 * u32(p, 8);
  let len = 0;
  for (let i = first; i <= last; i++) {
    const r = inflateTo(WHOLE, i, block(p, table, i), BLOCK + 1);
    release(); // the next block starts afresh
    const buf = roomFor(len + r.end, len);
    buf.set(r.bytes.subarray(0, r.end), len);
    len += r.end;
  }
  return len;
}

/** Block `i`'s deflated bytes. */
const block = (p: Uint8Array, table: number, i: number) =>
  p.subarray(table + (i ? u32(p, HEAD + 8 * (i - 1)) : 0), table + u32(p, HEAD + 8 * i));

const cut = (text: string, maxChars: number) =>
  maxChars < text.length ? text.slice(0, maxChars) : text;

/** UTF-8 bytes of the text packed. */
export function utf8Bytes(p: Uint8Array): number {
  return p[0] === RAW ? p.length - 1 : u32(p, 4);
}
