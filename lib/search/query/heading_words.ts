/**
 * Each page's headings as numbered words, read once and kept for the named-heading check
 * (named.ts): reading and stemming a pool of pages' headings for every query was a third of
 * a search's time. Per line: its length, the mask of its forms (`formMask`), its word count,
 * then its words' numbers; a number stands for a word as written, with its indexed forms (none
 * for a stop word or a section number). Bounded: past MAX_KEPT numbers or MAX_WORDS words the
 * kept lines start over.
 */
import { terms, words as wordsOf } from "../analysis/tokens.ts";
import type { SiteDb } from "../store/site_db.ts";

/** A section number ("9", "9.8", "2-1"): numbering, not a name. */
const NUMBER = /^\p{N}+(?:[.-]\p{N}+)*$/u;

/** Numbers kept per site and language at most (about 110,000 for 2,000 long pages). */
const MAX_KEPT = 1 << 18;
/** Distinct words numbered at most (about 20,000 for 2,000 long pages). */
const MAX_WORDS = 1 << 16;

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

/** What held one page's headings when they were read, and their lines as numbers. */
interface PageLines {
  holder: unknown;
  lines: Int32Array | undefined;
}

/** A site's headings read so far, in one language. */
export class HeadingWords {
  private numbers = new Map<string, number>();
  /** Per word number: its indexed forms, and their mask. */
  readonly forms: string[][] = [];
  private masks: number[] = [];
  private pages = new Map<number, PageLines>();
  private kept = 0;
  /** Per word number: the check it was last judged for (`judged`), and the verdict. */
  private stamp = new Uint32Array(0);
  private verdict = new Uint8Array(0);
  private check = 0;

  constructor(private lang: string) {}

  /** Page `id`'s heading lines as numbers (per line: length, mask, count, numbers), if any. */
  lines(db: SiteDb, id: number): Int32Array | undefined {
    // A page's data is never rewritten where it is held: the same holder, the same headings.
    const holder = db.docs.holder(id), had = this.pages.get(id);
    if (holder === undefined) return undefined;
    if (had?.holder === holder) return had.lines;
    const headings = db.docs.sectionHeadings(id);
    if (!headings) {
      this.pages.set(id, { holder, lines: undefined });
      this.kept++;
      return undefined;
    }
    if (this.kept > MAX_KEPT || this.forms.length > MAX_WORDS) this.reset();
    const out: number[] = [];
    for (let at = 0; at < headings.length;) {
      let end = headings.indexOf("\n", at);
      if (end < 0) end = headings.length;
      const line = headings.slice(at, end), head = out.length;
      out.push(end - at, 0, 0);
      let mask = 0;
      if (end > at) {
        for (const w of wordsOf(line, this.lang)) {
          const n = this.number(w);
          mask |= this.masks[n];
          out.push(n);
        }
      }
      out[head + 1] = mask;
      out[head + 2] = out.length - head - 3;
      at = end + 1;
    }
    const lines = Int32Array.from(out);
    this.kept += lines.length;
    this.pages.set(id, { holder, lines });
    return lines;
  }

  private number(word: string): number {
    let n = this.numbers.get(word);
    if (n === undefined) {
      this.numbers.set(word, n = this.forms.length);
      const forms = NUMBER.test(word) ? [] : terms(word, this.lang);
      this.forms.push(forms);
      this.masks.push(formMask(forms));
    }
    return n;
  }

  /** Bytes held, about: the lines' numbers, and a map entry and a list of forms per word. */
  get bytes(): number {
    return this.kept * 4 + this.pages.size * 64 + this.forms.length * 104;
  }

  private reset() {
    this.numbers.clear();
    this.forms.length = 0;
    this.masks.length = 0;
    this.pages.clear();
    this.kept = 0;
    this.stamp = new Uint32Array(0);
    this.verdict = new Uint8Array(0);
  }

  /** Starts a new check: `ofQuery` judges each word afresh, once. */
  begin() {
    if (++this.check === 0xffffffff) this.stamp.fill(0), this.check = 1;
  }

  /**
   * Whether every form of word `n` is one of `forms`, whose `formMask` is `mask` (as of the
   * check begun last).
   */
  ofQuery(n: number, forms: ReadonlySet<string>, mask: number): boolean {
    // A form outside the query's bits is no form of the query (most words, told at once).
    if (this.masks[n] & ~mask) return false;
    if (n >= this.stamp.length) {
      const size = Math.max(1024, this.forms.length * 2);
      const stamp = new Uint32Array(size), verdict = new Uint8Array(size);
      stamp.set(this.stamp);
      verdict.set(this.verdict);
      [this.stamp, this.verdict] = [stamp, verdict];
    }
    if (this.stamp[n] !== this.check) {
      this.stamp[n] = this.check;
      this.verdict[n] = this.forms[n].every((t) => forms.has(t)) ? 1 : 0;
    }
    return this.verdict[n] === 1;
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
