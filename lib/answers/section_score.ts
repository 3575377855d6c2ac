/**
 * Which sections answer a question: every candidate section (a heading and its text, or
 * one question of an FAQ and its answer) is scored against the question's content words,
 * read with search's analysis in the page's language (analysis.ts): BM25 over the
 * sections, heading words weighing most, times how much of the question it covers, how
 * closely its heading asks the same question as a whole, and how the site search ranked
 * its page.
 */
import { looksLikeCode } from "./extractive.ts";
import type { TextSection } from "./sections.ts";
import { asksLikeQuestion, contentTerms, phrasing } from "./analysis.ts";
import type { Slices } from "../slices.ts";

/** A page or document in the running, its sections cut and its language known. */
export interface Candidate {
  key: string;
  title: string;
  /** What the page says it is about (its description): counts like its title. */
  about: string;
  lang: string;
  /** Its place in the site search's ranking (0 first). */
  rank: number;
  /**
   * Its weight beside pages that say as much (search's prior: a listing of code, a page that
   * records changes, whose bullets mention what another page explains); 1 when absent.
   */
  prior?: number;
  usedBefore: boolean;
  sections: TextSection[];
}

export interface Scored<C extends Candidate> {
  c: C;
  section: TextSection;
  score: number;
  /** Share of the question's weight the section covers, 0 to 1. */
  cover: number;
}

/** Characters of a section scored and handed on (a whole answer is at most 1,600). */
export const SECTION_CHARS = 2_500;
/** Sections scored in full, after a cheap first pass over every candidate's sections. */
const SCORED_SECTIONS = 24;
/** A follow-up's earlier questions count this much beside its own words. */
const EARLIER_WEIGHT = 0.3;
const HEADING_HIT = 1.5;
const TITLE_HIT = 0.3;
const K1 = 1.2;
/**
 * How much a heading that asks the question itself lifts its section: at a perfect match
 * (the same content words, phrased alike) the section scores 1 + this times as much.
 */
const SAME_QUESTION = 6;
/** How sure a heading that is the question's words exactly, not asking it, is to answer it. */
const TASK_NAMED = 0.5;

/** How much a name the site states for a word counts against the word itself. */
const STATED = 0.6;
/** How much a question heading phrased alike counts, against one naming the same words. */
const ALIKE = 1;
/** Share of the question a section under a heading phrased alike must hold. */
const MIN_ALIKE_COVER = 0.75;

/** Term weights: the new question's words 1, earlier questions' less (all, if it has none). */
function weights(question: string, earlier: string[], lang: string): Map<string, number> {
  const w = new Map<string, number>();
  const asked = contentTerms(question, lang);
  for (const t of earlier.flatMap((q) => contentTerms(q, lang))) {
    w.set(t, asked.length ? EARLIER_WEIGHT : 1);
  }
  for (const t of asked) w.set(t, 1);
  return w;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (!a.size || !b.size) return 0;
  let n = 0;
  for (const t of a) if (b.has(t)) n++;
  return n / (a.size + b.size - n);
}

/**
 * How much a section reads like prose that can answer: a list of short lines (a table of
 * contents, a menu) or a block of code answers nothing in words.
 */
function form(text: string): number {
  const lines = text.split("\n", 60).filter((l) => l.trim());
  if (!lines.length) return 0;
  let words = 0, codeLines = 0, proseLines = 0;
  for (const l of lines) {
    for (let at = l.indexOf(" "); at >= 0; at = l.indexOf(" ", at + 1)) words++;
    words++;
    if (looksLikeCode(l)) codeLines++;
    if (/[.!]["”’)]?$/u.test(l.slice(-2))) proseLines++; // the line's end: its last characters
  }
  const code = codeLines / lines.length, prose = proseLines / lines.length;
  const list = lines.length >= 4 && words / lines.length < 14 && prose < 0.3 ? 0.4 : 1;
  return list * (1 - 0.6 * code);
}

/** Whether `a` comes right before `b` somewhere in the words. */
function adjacent(words: string[], a: string, b: string): boolean {
  for (let i = words.indexOf(a); i >= 0 && i < words.length - 1; i = words.indexOf(a, i + 1)) {
    if (words[i + 1] === b) return true;
  }
  return false;
}

/** The text up to `max` characters, cut at a line end where there is one. */
export function cutAtLine(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = text.lastIndexOf("\n", max);
  return text.slice(0, end > max / 2 ? end : max);
}

const NO_TERMS: ReadonlySet<string> = new Set<string>();

/** A candidate's title and description terms, worked out once. */
const pageTermsOf = new WeakMap<Candidate, string[]>();
function pageTerms(c: Candidate): string[] {
  let ts = pageTermsOf.get(c);
  if (!ts) pageTermsOf.set(c, ts = contentTerms(`${c.title} ${c.about}`, c.lang));
  return ts;
}

/** Per language, what the question asks: weights, terms in order, phrasing. */
interface Asked {
  weight: Map<string, number>;
  terms: string[];
  set: Set<string>;
  pairs: (readonly [string, string])[];
  phrasing: Set<string>;
  /** A term's other names the site states (its terms each), and every term they use. */
  alts: Map<string, string[][]>;
  altTerms: Set<string>;
}

function askedIn(
  question: string,
  earlier: string[],
  lang: string,
  stated: [string, string][],
): Asked {
  const terms = contentTerms(question, lang);
  const alts = new Map<string, string[][]>();
  for (const [name, other] of stated) {
    const [t, more] = contentTerms(name, lang), ts = contentTerms(other, lang);
    if (t && !more && terms.includes(t) && ts.length) alts.set(t, [...alts.get(t) ?? [], ts]);
  }
  return {
    alts,
    altTerms: new Set([...alts.values()].flat(2)),
    weight: weights(question, earlier, lang),
    terms,
    set: new Set(terms),
    pairs: terms.slice(1).map((t, i) => [terms[i], t] as const),
    phrasing: phrasing(question, lang),
  };
}

/** A section's text as the cheap first pass reads it, and its heading's terms once read. */
interface Rough {
  lower: string;
  lowHead: string;
  head?: ReadonlySet<string>;
}

/** What the full scoring reads of a section, worked out once for every question scored. */
interface Full {
  section: TextSection;
  words: string[];
  headTerms: string[];
  form: number;
  asks: boolean;
}

// Per section, while its candidate lives: a typo'd question is scored again as corrected, and
// the second round reads the same sections.
const roughOf = new WeakMap<TextSection, Rough>();
const fullOf = new WeakMap<TextSection, Full>();

function rough(section: TextSection): Rough {
  let r = roughOf.get(section);
  if (!r) {
    // One question of an FAQ section is also about what its section's heading says.
    const headings = section.parent ? `${section.heading}\n${section.parent}` : section.heading;
    roughOf.set(
      section,
      r = {
        lower: section.text.slice(0, SECTION_CHARS).toLowerCase(),
        lowHead: headings.toLowerCase(),
      },
    );
  }
  return r;
}

function full(whole: TextSection, lang: string): Full {
  let f = fullOf.get(whole);
  if (!f) {
    // An answer is read from a section's start: a long one's first part is what counts.
    const section = { ...whole, text: cutAtLine(whole.text, SECTION_CHARS) };
    fullOf.set(
      whole,
      f = {
        section,
        words: contentTerms(section.text, lang),
        headTerms: contentTerms(section.heading, lang),
        form: form(section.text),
        asks: asksLikeQuestion(section.heading),
      },
    );
  }
  return f;
}

/**
 * The first, cheap pass of scoring a question: the sections worth scoring in full, and
 * whether some word of the question is in no candidate's text (a typo, perhaps: `unheld`).
 */
export interface Round<C extends Candidate> {
  unheld: boolean;
  /** The question's own terms no candidate holds. */
  unheldTerms: ReadonlySet<string>;
  kept: { c: C; section: TextSection; head: ReadonlySet<string> }[];
  asked: (lang: string) => Asked;
}

/** The first pass over every candidate section (heading words, and the text holding a stem). */
export async function roughRound<C extends Candidate>(
  candidates: C[],
  question: string,
  earlier: string[],
  slices: Slices,
  stated: [string, string][] = [],
): Promise<Round<C>> {
  const byLang = new Map<string, Asked>();
  const asked = (lang: string) => {
    let a = byLang.get(lang);
    if (!a) byLang.set(lang, a = askedIn(question, earlier, lang, stated));
    return a;
  };
  // Stemming every section is the costly part: a cheap first pass (heading words, and the
  // text merely containing a query stem) keeps the sections worth scoring properly.
  const found: { c: C; section: TextSection; head: ReadonlySet<string>; rough: number }[] = [];
  // The question's terms some candidate holds as written: one that none does may be a typo.
  const held = new Set<string>();
  for (const c of candidates) {
    await slices.pause();
    for (const t of pageTerms(c)) held.add(t);
    const a = asked(c.lang);
    const roots = [...a.weight, ...[...a.altTerms].map((t) => [t, STATED] as const)].map((
      [t, w],
    ) => ({ root: t.slice(0, Math.max(2, t.length - 1)), t, w }));
    for (const section of c.sections) {
      if (!section.text) continue;
      const r = rough(section);
      let head = NO_TERMS;
      if (roots.some((x) => r.lowHead.includes(x.root))) {
        const headings = section.parent ? `${section.heading}\n${section.parent}` : section.heading;
        head = r.head ??= new Set(contentTerms(headings, c.lang));
      }
      let score = 0;
      for (const { root, t, w } of roots) {
        score += w * ((head.has(t) ? 2 : 0) + (r.lower.includes(root) ? 1 : 0));
        if (w === 1 && !held.has(t) && (head.has(t) || r.lower.includes(t))) held.add(t);
      }
      if (score > 0) found.push({ c, section, head, rough: score / (1 + 0.02 * c.rank) });
    }
  }
  found.sort((a, b) => b.rough - a.rough);
  const unheldTerms = new Set(
    [...byLang.values()].flatMap((a) =>
      [...a.weight].filter(([t, w]) => w === 1 && !held.has(t)).map(([t]) => t)
    ),
  );
  return {
    unheld: unheldTerms.size > 0,
    unheldTerms,
    kept: found.slice(0, SCORED_SECTIONS),
    asked,
  };
}

/** The sections a first pass kept, scored in full, best first. */
export async function scoreRound<C extends Candidate>(
  round: Round<C>,
  slices: Slices,
): Promise<Scored<C>[]> {
  const { asked } = round;
  const rows = [];
  for (const { c, section: whole, head } of round.kept) {
    await slices.pause();
    const { section, words, headTerms, form, asks } = full(whole, c.lang);
    // Frequencies of the question's terms only: the rest are never looked up.
    const { weight, altTerms } = asked(c.lang);
    const tf = new Map<string, number>();
    for (const t of words) {
      if (weight.has(t) || altTerms.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
    }
    const page = pageTerms(c);
    const own = section.parent ? new Set(headTerms) : head;
    rows.push({
      c,
      section,
      head,
      tf,
      len: words.length,
      title: new Set(page),
      // Heading, text and page words in order, for phrases of the question said as such.
      said: [page, headTerms, words],
      form,
      own,
      asks,
      asked: asked(c.lang),
    });
  }
  if (!rows.length) return [];

  // Section-level IDF: a word in every section says little about which one answers.
  const df = new Map<string, number>();
  for (const r of rows) {
    for (const t of r.asked.weight.keys()) {
      if (r.head.has(t) || r.tf.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
    }
  }
  const rawIdf = (t: string) => Math.log(1 + (rows.length + 1) / ((df.get(t) ?? 0) + 0.5));
  // A word no section holds (a word the site never uses) weighs like the rarest word some section
  // does hold: alone it cannot veto what the rest of the question finds. All unknown: no match.
  const known = [...df.keys()].map(rawIdf);
  const unknownIdf = known.length ? Math.max(...known) : rawIdf("");
  const idf = (t: string) => df.has(t) ? rawIdf(t) : unknownIdf;
  const avgLen = rows.reduce((n, r) => n + r.len, 0) / rows.length || 1;

  const scored = rows.map((r): Scored<C> => {
    const { weight } = r.asked;
    let score = 0, covered = 0, coveredAsked = 0, total = 0, totalAsked = 0;
    for (const [t, w] of weight) {
      total += w * idf(t);
      if (w === 1) totalAsked += idf(t);
      let tf = r.tf.get(t) ?? 0, head = r.head.has(t), say = 1;
      const inTitle = r.title.has(t);
      if (!tf && !head && !inTitle) {
        // The section may say it by another name the site states ("content delivery network").
        const alt = r.asked.alts.get(t)?.find((ts) =>
          ts.every((x) => r.tf.has(x) || r.head.has(x))
        );
        if (!alt) continue;
        tf = Math.min(...alt.map((x) => r.tf.get(x) ?? 0));
        head = alt.every((x) => r.head.has(x));
        say = STATED;
      }
      const norm = K1 * (0.25 + 0.75 * r.len / avgLen);
      const part = (head ? HEADING_HIT : 0) + (tf ? (tf * (K1 + 1)) / (tf + norm) : 0) +
        (inTitle ? TITLE_HIT : 0);
      score += say * w * idf(t) * part;
      // A word only in the page title half answers: the section is on the page's subject.
      const share = tf || head ? 1 : 0.5;
      covered += w * idf(t) * share;
      if (w === 1) coveredAsked += idf(t) * share;
    }
    const cover = total ? covered / total : 0;
    // A heading that names what was asked marks the section that answers it.
    const named = jaccard(r.own, r.asked.set);
    // Between headings that name the question's words, one phrased like it reads closer; function
    // words alone never lift a heading that names nothing.
    const phrased = named > 0
      ? jaccard(phrasing(r.section.heading, r.c.lang), r.asked.phrasing)
      : 0;
    const { pairs } = r.asked;
    const phrases = pairs.length
      ? pairs.filter(([a, b]) => r.said.some((ws) => adjacent(ws, a, b))).length / pairs.length
      : 0;
    // A heading that asks the question itself (an FAQ's own question) is the answer's place;
    // one naming none of its words but phrased alike ("how long does … take") asks it in
    // other words, if the section holds what was asked.
    const alike = r.asks && named === 0 && cover >= MIN_ALIKE_COVER
      ? jaccard(phrasing(r.section.heading, r.c.lang), r.asked.phrasing)
      : 0;
    // A heading made of the question's words and no others names the task it asks about
    // ("Using a callable" for "How do I use a callable?"): half as sure as one asking it.
    const same = r.asks
      ? Math.max(named * (0.5 + 0.5 * phrased), ALIKE * alike)
      : named === 1
      ? TASK_NAMED
      : 0;
    score *= (0.3 + cover) ** 2 * (1 + 1.5 * named) * (1 + 0.3 * phrased) * (1 + 0.5 * phrases);
    score *= 1 + SAME_QUESTION * same ** 2;
    score *= r.form;
    score *= 1 / (1 + 0.05 * r.c.rank); // the site search's ranking of the page still counts
    score *= r.c.prior ?? 1;
    if (r.c.usedBefore) score *= 1.3; // a follow-up stays with the conversation's pages
    return {
      c: r.c,
      section: r.section,
      score,
      cover: totalAsked ? coveredAsked / totalAsked : cover,
    };
  }).filter((x) => x.score > 0).sort((a, b) => b.score - a.score);
  return scored;
}
