/**
 * Each page's headings as numbered words, read once and kept for the named-heading check
 * (named.ts): reading and stemming a pool of pages' headings for every query was a third of
 * a search's time. Per line, 16 bits each: its length (at most LONG_LINE), the mask of
 * its forms (`formMask`) in two halves, its word count, then its words' numbers
 * (heading_numbers.ts: one numbering per language for every site, under 2^16 words). A site
 * keeps its pages' lines in a few chunks (a typed array per page cost more than its numbers);
 * bounded: past MAX_KEPT numbers it starts over, and so it does when the numbering has.
 */
import { wordList } from "../analysis/tokens.ts";
import type { SiteDb } from "../store/site_db.ts";
import { HeadingNumbers, SITE_SHARE } from "./heading_numbers.ts";

/** Numbers kept per site and language at most (about 110,000 for 2,000 long pages). */
const MAX_KEPT = 1 << 18;
/** Numbers per chunk, at least and at most (a larger page has a chunk of its own). */
const MIN_CHUNK = 1 << 8, MAX_CHUNK = 1 << 16;
/** A line's length is kept up to this (a longer one names nothing, as one this long). */
const LONG_LINE = 0xffff;
/** Numbers a line takes besides its words': length, mask (two halves), word count. */
export const LINE_HEAD = 4;
/** Bytes per page slot: its holder, its chunk's number, where its lines start and end. */
const SLOT_BYTES = 20;

/** One page's lines: `chunk[at, end)`. */
export interface PageLines {
  chunk: Uint16Array;
  at: number;
  end: number;
}

/** One page's lines as they are numbered, before they are kept (grown as needed). */
let scratch = new Uint16Array(1024);

/**
 * A site's headings read so far, in one language. Pages are kept in columns by id, not as
 * an object each: 200 sites held 50,000 of those, which every full collection marked.
 */
export class HeadingWords {
  /** The numbering the lines are in: the shared one, or the site's own once it took too much. */
  words: HeadingNumbers;
  /** New words and characters this site gave the shared numbering in its generation (SITE_SHARE). */
  private added = { words: 0, chars: 0 };
  /** The site took its share: its next page starts its own numbering. */
  private crowding = false;
  /** Per page: what held its headings when they were read (undefined: not read). */
  private holders: unknown[] = [];
  /** Per page: the chunk its lines are in, and where they start and end there. */
  private chunkOf = new Uint32Array(0);
  private starts = new Uint32Array(0);
  private ends = new Uint32Array(0);
  /** The chunks, the last filled up to `used`; the numbers all of them have room for. */
  private chunks: Uint16Array[] = [];
  /** What `lines` returns, read before the next call: one object, not one per page. */
  private view: PageLines = { chunk: new Uint16Array(0), at: 0, end: 0 };
  private used = 0;
  private held = 0;
  private generation = 0;

  constructor(private lang: string) {
    this.words = HeadingNumbers.of(lang);
  }

  /**
   * Page `id`'s heading lines (per line: length, mask, count, numbers), if it has any; the
   * object returned is this one's, and holds another page's lines after the next call.
   */
  lines(db: SiteDb, id: number): PageLines | undefined {
    // A page's data is never rewritten where it is held: the same holder, the same headings.
    const holder = db.docs.holder(id);
    if (holder === undefined) return undefined;
    if (this.crowding) {
      // Its lines so far are in the shared numbering: all are read again in its own.
      this.words = HeadingNumbers.own(this.lang);
      this.crowding = false;
      this.startOver();
    }
    if (this.generation !== this.words.generation) this.startOver();
    if (this.holders[id] === holder) return this.viewOf(id);
    const headings = db.docs.sectionHeadings(id);
    if (!headings) return this.keep(id, holder, 0, 0);
    this.words.bound();
    if (this.generation !== this.words.generation || this.held > MAX_KEPT) this.startOver();
    const [words, chars] = [this.words.size, this.words.chars];
    const n = numbered(headings, this.words, this.lang);
    if (this.words.shared) {
      this.added.words += this.words.size - words;
      this.added.chars += this.words.chars - chars;
      this.crowding = this.added.words > SITE_SHARE.words || this.added.chars > SITE_SHARE.chars;
    }
    let chunk = this.chunks.at(-1);
    if (this.used + n > (chunk?.length ?? 0)) {
      const size = Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, this.held >> 2));
      this.chunks.push(chunk = new Uint16Array(Math.max(n, size)));
      this.held += chunk.length;
      this.used = 0;
    }
    const at = this.used;
    for (let i = 0; i < n; i++) chunk![at + i] = scratch[i];
    this.used += n;
    return this.keep(id, holder, at, at + n);
  }

  /** Whether the lines kept are under half their bound: reading ahead stops there. */
  get roomy(): boolean {
    return this.held < MAX_KEPT / 2 && this.words.roomy();
  }

  /** Bytes held, about: the chunks, the columns, and the site's own numbering if it has one. */
  get bytes(): number {
    const own = this.words.shared ? 0 : this.words.bytes;
    return this.held * 2 + this.starts.length * SLOT_BYTES + own;
  }

  /** Notes page `id`'s lines, in the chunk being filled; returns them (none when empty). */
  private keep(id: number, holder: unknown, at: number, end: number) {
    if (id >= this.starts.length) this.grow(id + 1);
    this.holders[id] = holder;
    this.chunkOf[id] = this.chunks.length - 1;
    this.starts[id] = at;
    this.ends[id] = end;
    return this.viewOf(id);
  }

  private viewOf(id: number): PageLines | undefined {
    const at = this.starts[id], end = this.ends[id];
    if (at >= end) return undefined;
    const { view } = this;
    view.chunk = this.chunks[this.chunkOf[id]];
    view.at = at;
    view.end = end;
    return view;
  }

  /** Room for `n` pages at least; the holders grow by pushes, so that they stay a plain array. */
  private grow(n: number) {
    const size = Math.max(64, n, this.starts.length * 2);
    const widen = (a: Uint32Array) => {
      const b = new Uint32Array(size);
      b.set(a);
      return b;
    };
    this.chunkOf = widen(this.chunkOf);
    this.starts = widen(this.starts);
    this.ends = widen(this.ends);
    while (this.holders.length < size) this.holders.push(undefined);
  }

  private startOver() {
    this.holders = [];
    this.chunkOf = new Uint32Array(0);
    this.starts = new Uint32Array(0);
    this.ends = new Uint32Array(0);
    this.chunks = [];
    this.used = this.held = 0;
    if (this.generation !== this.words.generation) this.added = { words: 0, chars: 0 };
    this.generation = this.words.generation;
  }
}

/** Characters of the scripts `wordList` segments (and more): their words are read line by line. */
const SEGMENTED = /[\u0e00-\u1fff\u3000-\ufaff\uff00-\uffff\ud800-\udbff]/;

/**
 * Numbers a page's heading lines into `scratch`; how many numbers they took. Words are runs of
 * letters and digits, so no line's word begins before the last word's end: the whole text is
 * split once and each word found in its line, but for the scripts `wordList` segments by the
 * run (SEGMENTED), whose lines are split one by one. A page whose words would number past
 * 16 bits (a numbering only bounded between pages) keeps the lines before.
 */
function numbered(headings: string, words: HeadingNumbers, lang: string): number {
  const whole = SEGMENTED.test(headings) ? null : wordList(headings, lang);
  let out = 0, k = 0, pos = 0;
  for (let from = 0; from < headings.length;) {
    let end = headings.indexOf("\n", from);
    if (end < 0) end = headings.length;
    const list = whole ?? (end > from ? wordList(headings.slice(from, end), lang) : []);
    let i = whole ? k : 0;
    room(out + LINE_HEAD + list.length - i);
    const head = out;
    let mask = 0;
    out += LINE_HEAD;
    for (; i < list.length; i++) {
      const w = list[i];
      if (whole) {
        const at = headings.indexOf(w, pos);
        if (at >= end) break;
        pos = at + w.length;
      }
      const n = words.number(w);
      if (n > 0xffff) return head;
      mask |= words.masks[n];
      scratch[out++] = n;
    }
    if (whole) k = i;
    scratch[head] = Math.min(end - from, LONG_LINE);
    scratch[head + 1] = mask & 0xffff;
    scratch[head + 2] = mask >>> 16;
    scratch[head + 3] = out - head - LINE_HEAD;
    from = end + 1;
  }
  return out;
}

/** Makes `scratch` hold `n` numbers at least (keeping those it has). */
function room(n: number) {
  if (n <= scratch.length) return;
  const more = new Uint16Array(n * 2);
  more.set(scratch);
  scratch = more;
}

/** Pages whose heading lines are read ahead a step (well under a millisecond). */
const AHEAD_STEP = 8;

/**
 * Reads the pages' heading lines before any search asks, a step at a time, while the site's
 * kept lines and the numberings stay under half their bounds. A site's first searches read
 * them for every page of their pools: on sites of long pages, a fifth of those searches' time.
 */
export function* readHeadingsAhead(db: SiteDb, lang: string): Generator<void> {
  const read = keptHeadings(db, lang);
  for (let id = 0; id < db.index.slots && read.roomy; id++) {
    read.lines(db, id);
    if (id % AHEAD_STEP === AHEAD_STEP - 1) yield;
  }
}

const byDb = new WeakMap<SiteDb, Map<string, HeadingWords>>();

/** Bytes a site's kept heading lines hold (the memory budget counts them with its index). */
export function keptHeadingsBytes(db: SiteDb): number {
  let n = 0;
  for (const read of byDb.get(db)?.values() ?? []) n += read.bytes;
  return n;
}

/** A site's headings read so far in a language (kept while its index lives). */
export function keptHeadings(db: SiteDb, lang: string): HeadingWords {
  let byLang = byDb.get(db);
  if (!byLang) byDb.set(db, byLang = new Map());
  let got = byLang.get(lang);
  if (!got) byLang.set(lang, got = new HeadingWords(lang));
  return got;
}
