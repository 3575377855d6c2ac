/**
 * Text read for results shown, kept for the next result showing the same page (pages that
 * answer many queries are shown again and again, and inflating one is most of showing it).
 * Kept as UTF-8 in one buffer of KEPT_BYTES outside the heap, written round and round: the
 * oldest go first, and one shown again when its turn is near is written anew at the front
 * (nearly least recently shown first). Strings kept for every page read would outlive the
 * young generation, be copied into the old one and leave it garbage when forgotten: with 200
 * sites most results read their page for the first time, and that churn was the GC's work.
 * A text shown again is kept as a string too (up to KEPT_CHARS in all), so a page that answers
 * many queries is not decoded each time (0.7 µs a KB for text beyond Latin-1).
 * A per-process table, not an index's: it is bounded and counts in no index's bytes.
 */

/** Bytes kept at most. */
export const KEPT_BYTES = 8 * 1048576;
/** Longer texts are not kept: one would push out too many others. */
const MAX_ONE = KEPT_BYTES / 16;
/** Written anew when shown with fewer bytes than this before its turn to go. */
const NEAR_TURN = KEPT_BYTES / 4;
/**
 * Characters of the texts kept as strings at most; each goes with its bytes, so the ring
 * bounds them too (about 8M characters of documentation).
 */
const KEPT_CHARS = 8_000_000;

const decoder = new TextDecoder();

/** A kept text: `len` bytes at `at`; what they are is the reader's (packed_text.ts). */
export interface Kept {
  /** The packed text's length: the place holds another text when it differs. */
  readonly size: number;
  at: number;
  len: number;
  /** UTF-16 units the bytes hold. */
  chars: number;
  /** The block the next byte of the text would come from, and where it starts (UTF-8). */
  blk: number;
  blkAt: number;
  /** The bytes decoded, for a text shown more than once. */
  text: string | undefined;
  live: boolean;
  map: Map<Place, Kept>;
  place: Place;
}

/** Where a kept text is read from in its buffer: a prefix's offset, or a stretch's blocks too. */
export type Place = number | string;

/**
 * What is kept of each packed text, by the buffer that holds it (an index's columns are made
 * once and never written) and where in it: a document's bytes are a new view per read. A
 * dropped index's entries go in their turn.
 */
const places = new WeakMap<ArrayBufferLike, Map<Place, Kept>>();

let arena: Uint8Array | null = null;
/** Where the next bytes are written. */
let head = 0;
/** The kept texts in the order written, from `front` on: the first ones go next. */
let ring: Kept[] = [];
let front = 0;
/** Characters of the kept entries' strings. */
let textChars = 0;

/** The text kept at `place` in `buffer` for packed text of `size` bytes, if any. */
export function keptAt(buffer: ArrayBufferLike, place: Place, size: number): Kept | undefined {
  const k = places.get(buffer)?.get(place);
  if (!k || k.size !== size) return undefined;
  // Ahead of the front and soon overwritten: written anew.
  const ahead = k.at >= head ? k.at - head : k.at + KEPT_BYTES - head;
  if (ahead < NEAR_TURN) {
    const bytes = arena!.slice(k.at, k.at + k.len), { chars, blk, blkAt, text } = k;
    return keep(buffer, place, size, bytes, bytes.length, { chars, blk, blkAt, text }) ?? k;
  }
  return k;
}

/** A kept text's bytes (a view: valid until the next text is kept). */
export const keptBytes = (k: Kept) => arena!.subarray(k.at, k.at + k.len);

/** A kept text as a string: decoded, and kept so when there is room (it was shown before). */
export function keptText(k: Kept): string {
  if (k.text !== undefined) return k.text;
  const text = decoder.decode(keptBytes(k));
  if (textChars + text.length <= KEPT_CHARS) [k.text, textChars] = [text, textChars + text.length];
  return text;
}

/**
 * Keeps `bytes[0, len)` at `place` in `buffer` for packed text of `size` bytes, in place of
 * what was kept there; `like` gives what they hold (`chars`, `blk`, `blkAt`). Undefined
 * (nothing kept) for a text too long.
 */
export function keep(
  buffer: ArrayBufferLike,
  place: Place,
  size: number,
  bytes: Uint8Array,
  len: number,
  like: Pick<Kept, "chars" | "blk" | "blkAt" | "text">,
): Kept | undefined {
  let map = places.get(buffer);
  const had = map?.get(place);
  if (had) forget(had);
  if (len > MAX_ONE) return undefined;
  arena ??= new Uint8Array(KEPT_BYTES);
  if (head + len > KEPT_BYTES) {
    // The rest of the buffer is left: what is kept there goes now.
    while (front < ring.length && ring[front].at >= head) forget(ring[front++]);
    head = 0;
  }
  claim(len);
  arena.set(len === bytes.length ? bytes : bytes.subarray(0, len), head);
  if (!map) places.set(buffer, map = new Map());
  const k: Kept = {
    size,
    at: head,
    len,
    chars: like.chars,
    blk: like.blk,
    blkAt: like.blkAt,
    text: undefined,
    live: true,
    map,
    place,
  };
  withText(k, like.text);
  map.set(place, k);
  ring.push(k);
  head += len;
  return k;
}

/** Makes room for `len` bytes at `head`: what is kept there goes. */
function claim(len: number) {
  while (front < ring.length && ring[front].at >= head && ring[front].at < head + len) {
    forget(ring[front++]);
  }
  // The ones gone are let go of now and then, not one by one.
  if (front > 1024 && front * 2 > ring.length) [ring, front] = [ring.slice(front), 0];
}

/** A text kept as a string stays so (read on, or written anew), while there is room. */
function withText(k: Kept, text: string | undefined) {
  if (k.text !== undefined) [k.text, textChars] = [undefined, textChars - k.text.length];
  if (text !== undefined && textChars + text.length <= KEPT_CHARS) {
    [k.text, textChars] = [text, textChars + text.length];
  }
}

/**
 * Keeps `k`'s text read on: `more[0, n)` after its bytes, `like` what they hold then. In
 * place when it was the last kept (a result reads its page on before the next is read), else
 * kept anew whole (`keep`).
 */
export function keepMore(
  buffer: ArrayBufferLike,
  k: Kept,
  more: Uint8Array,
  n: number,
  like: Pick<Kept, "chars" | "blk" | "blkAt" | "text">,
): Kept | undefined {
  if (k.live && k.at + k.len === head && head + n <= KEPT_BYTES && k.len + n <= MAX_ONE) {
    claim(n);
    arena!.set(more.subarray(0, n), head);
    head += n;
    [k.len, k.chars, k.blk, k.blkAt] = [k.len + n, like.chars, like.blk, like.blkAt];
    withText(k, like.text);
    return k;
  }
  const whole = new Uint8Array(k.len + n);
  whole.set(keptBytes(k));
  whole.set(more.subarray(0, n), k.len);
  return keep(buffer, k.place, k.size, whole, whole.length, like);
}

/** Forgets a kept text (its bytes stay in the ring, unused, until overwritten). */
function forget(k: Kept) {
  if (!k.live) return;
  k.live = false;
  if (k.map.get(k.place) === k) k.map.delete(k.place);
  if (k.text !== undefined) [k.text, textChars] = [undefined, textChars - k.text.length];
}

/** Bytes of the texts kept now (for tests and benchmarks). */
export function keptNow(): number {
  let n = 0;
  for (let i = front; i < ring.length; i++) if (ring[i].live) n += ring[i].len;
  return n;
}
