/**
 * Heading words numbered once for the whole process, per language (heading_words.ts keeps
 * each site's lines as these numbers): sites share most heading words ("the", "settings",
 * "command"), and numbering and stemming them again for each site was most of a site's first
 * read of its headings, with a table per site. A number stands for a word as written, with its
 * indexed forms (none for a stop word or a section number) and their mask. Bounded: past
 * MAX_WORDS words over every language, or MAX_CHARS of them, every numbering starts over in a
 * new generation, and lines numbered in an older one are read again. A site whose headings
 * would fill the shared numbering by themselves numbers them on its own (`own`, with the same
 * bounds), so that no tenant's words make every other site read its headings again.
 */
import { ownCopy, terms } from "../analysis/tokens.ts";

/** A section number ("9", "9.8", "2-1"): numbering, not a name. */
const NUMBER = /^\p{N}+(?:[.-]\p{N}+)*$/u;

/**
 * Distinct words numbered at most, over every language: about 5 MB (the bench's 200 sites
 * number 17,440).
 */
const MAX_WORDS = 1 << 15;
/** Characters of those words at most: a few very long words must not make the table large. */
const MAX_CHARS = 1 << 19;
/** Bytes per word besides its characters, about: a map entry, its forms, its mask and stamp. */
const WORD_BYTES = 120;

/** Words a numbering has room for at first (its columns double as it grows). */
const FIRST_ROOM = 1024;

/** No forms: a stop word's or a section number's. */
const NO_FORMS: readonly string[] = [];

/** One bit of 32 for a form (FNV-1a): a line whose mask shares none with a query's holds none of its forms. */
function formBit(form: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < form.length; i++) h = Math.imul(h ^ form.charCodeAt(i), 0x01000193);
  return 1 << (h & 31);
}

/** The bits of some forms: of a query's, or of a heading line's words. */
export function formMask(forms: Iterable<string>): number {
  let mask = 0;
  for (const f of forms) mask |= formBit(f);
  return mask;
}

/** Numberings that share one bound: every site's (per language), or one site's own. */
class Pool {
  readonly byLang = new Map<string, HeadingNumbers>();
  /** Words and characters numbered over every language; the generation they belong to. */
  words = 0;
  chars = 0;
  generation = 1;
}

const SHARED = new Pool();

/** One language's heading words, numbered for every site of the process. */
export class HeadingNumbers {
  private numbers = new Map<string, number>();
  /**
   * Every word's indexed forms, word after word: word n's are `formList[formAt[n],
   * formAt[n + 1])`. Not an array per word: 200 sites' headings numbered 15,000 words, whose
   * arrays were 30,000 of the heap's objects, which every full collection marked.
   */
  private formList: string[] = [];
  private formAt = new Int32Array(FIRST_ROOM + 1);
  /** Per word number: its forms' mask. */
  masks = new Int32Array(FIRST_ROOM);
  /** Per word number: the check it was last judged for (`judged`), and the verdict. */
  private stamp = new Uint32Array(0);
  private verdict = new Uint8Array(0);
  private check = 0;
  /** The generation the numbers belong to: lines numbered in another are read again. */
  generation: number;

  private constructor(private lang: string, private pool: Pool) {
    this.generation = pool.generation;
  }

  /** The numbering of a language's heading words that every site shares. */
  static of(lang: string): HeadingNumbers {
    let got = SHARED.byLang.get(lang);
    if (!got) SHARED.byLang.set(lang, got = new HeadingNumbers(lang, SHARED));
    return got;
  }

  /** A numbering of one site's own, bounded as the shared one is (heading_words.ts). */
  static own(lang: string): HeadingNumbers {
    const pool = new Pool(), numbering = new HeadingNumbers(lang, pool);
    pool.byLang.set(lang, numbering);
    return numbering;
  }

  /** Whether every site shares this numbering. */
  get shared(): boolean {
    return this.pool === SHARED;
  }

  /** Words numbered so far. */
  get size(): number {
    return this.numbers.size;
  }

  /** Characters of the words numbered so far. */
  chars = 0;

  /** Bytes this numbering's pool holds, about (counted with its site when it is its own). */
  get bytes(): number {
    return poolBytes(this.pool);
  }

  /**
   * Starts every numbering of this one's pool over when they hold too much: asked before a
   * page is numbered, so that one page's numbers are all of one generation.
   */
  bound() {
    const pool = this.pool;
    if (pool.words < MAX_WORDS && pool.chars < MAX_CHARS) return;
    pool.generation++;
    pool.words = pool.chars = 0;
    for (const numbering of pool.byLang.values()) numbering.reset();
  }

  /** Whether the pool holds under half its bound: reading ahead never starts it over. */
  roomy(): boolean {
    return this.pool.words < MAX_WORDS / 2 && this.pool.chars < MAX_CHARS / 2;
  }

  /** The number of a word as written (numbered now if it is new). */
  number(word: string): number {
    let n = this.numbers.get(word);
    if (n === undefined) {
      n = this.numbers.size;
      // The word may be a slice of a page's headings: the table keeps a copy of its own.
      this.numbers.set(ownCopy(word), n);
      const forms = NUMBER.test(word) ? NO_FORMS : terms(word, this.lang);
      if (n >= this.masks.length) {
        const masks = new Int32Array(this.masks.length * 2);
        masks.set(this.masks);
        this.masks = masks;
        const formAt = new Int32Array(masks.length + 1);
        formAt.set(this.formAt);
        this.formAt = formAt;
      }
      for (const form of forms) this.formList.push(form);
      this.formAt[n + 1] = this.formList.length;
      this.masks[n] = formMask(forms);
      this.pool.words++;
      this.pool.chars += word.length;
      this.chars += word.length;
    }
    return n;
  }

  private reset() {
    this.numbers.clear();
    this.formList = [];
    this.formAt = new Int32Array(FIRST_ROOM + 1);
    this.masks = new Int32Array(FIRST_ROOM);
    this.stamp = new Uint32Array(0);
    this.verdict = new Uint8Array(0);
    this.chars = 0;
    this.generation = this.pool.generation;
  }

  /** Starts a new check: `ofQuery` judges each word afresh, once. */
  begin() {
    if (++this.check === 0xffffffff) this.stamp.fill(0), this.check = 1;
  }

  /**
   * Whether every form of word `n` is one of `forms`, whose `formMask` is `mask` (as of the
   * check begun last: ranking is synchronous, so one check is under way at a time).
   */
  ofQuery(n: number, forms: ReadonlySet<string>, mask: number): boolean {
    // A form outside the query's bits is no form of the query (most words, told at once).
    if (this.masks[n] & ~mask) return false;
    if (n >= this.stamp.length) {
      const size = Math.max(FIRST_ROOM, this.numbers.size * 2);
      const stamp = new Uint32Array(size), verdict = new Uint8Array(size);
      stamp.set(this.stamp);
      verdict.set(this.verdict);
      [this.stamp, this.verdict] = [stamp, verdict];
    }
    if (this.stamp[n] !== this.check) {
      this.stamp[n] = this.check;
      // By index: with every() here and for-of in naming, a ranking allocated 7.5 KB more.
      const list = this.formList, end = this.formAt[n + 1];
      let all = 1;
      for (let i = this.formAt[n]; i < end && all; i++) if (!forms.has(list[i])) all = 0;
      this.verdict[n] = all;
    }
    return this.verdict[n] === 1;
  }

  /** Adds word `n`'s indexed forms to `into`. */
  addForms(n: number, into: Set<string>) {
    const list = this.formList, end = this.formAt[n + 1];
    for (let i = this.formAt[n]; i < end; i++) into.add(list[i]);
  }
}

const poolBytes = (pool: Pool) => pool.words * WORD_BYTES + pool.chars * 2;

/** Bytes the shared numberings of every language hold, about (bounded: MAX_WORDS and MAX_CHARS). */
export function headingNumbersBytes(): number {
  return poolBytes(SHARED);
}

/**
 * New words (and their characters) one site may number in the shared numbering within one
 * generation: past either its headings would crowd the other sites out, and it numbers its
 * own (heading_words.ts).
 */
export const SITE_SHARE = { words: MAX_WORDS / 8, chars: MAX_CHARS / 8 };
