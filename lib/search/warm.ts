/**
 * The search path run on a small index of its own when a process starts, so that V8 has
 * compiled decoding, ranking, correcting and highlighting before a visitor's first search
 * (after a restart that search also reads and decodes the site's snapshot: every millisecond
 * of code compiled on its path shows). Nothing of it is kept.
 *
 * Then, once the server is quiet, a deep warm-up on long pages (deflated text, numbered
 * sections, passages): the short one leaves most of the path unoptimized, and a fresh server's
 * first thousand searches paid for V8's compiling it (the 200-site warm round over HTTP, raw
 * client, 2 runs each: p99 2.20, 2.44 ms against 3.64, 3.12; p50 0.40–0.43 against 0.51–0.53).
 *
 * And after a change to the largest index the process has held, that site's own first searches
 * rehearsed on it while no one searches (`rehearsal`), for what a large index compiles anew.
 */
import {
  addDoc,
  createSiteDb,
  decodeSiteDb,
  docCount,
  encodeSiteDb,
  headingsText,
  mostUsedWords,
  prepareIndex,
  search,
  type SiteDb,
} from "./engine/mod.ts";
import { quiet, SEARCH_QUIET_MS } from "./activity.ts";
import type { PageInput } from "../sites/pages.ts";
import { inTimeSlices } from "../slices.ts";

const TOPICS = ["shipping", "returns", "accounts", "payments", "settings", "privacy"];

/** A page of the warm-up site: a title, a lead and two sections, as the crawler stores them. */
function page(topic: string, i: number) {
  const sections = [
    { heading: `How ${topic} works`, anchor: `how-${topic}` },
    { heading: `Changing your ${topic} options`, anchor: `change-${topic}` },
  ];
  const lines = [
    `${topic} explained: what the service does with your ${topic} and when.`,
    sections[0].heading,
    `Every ${topic} request is checked, stored and answered within two working days.`,
    sections[1].heading,
    `Open the ${topic} page of your account, change the options and save them.`,
  ];
  return {
    id: `/help/${topic}-${i}`,
    title: `${topic[0].toUpperCase()}${topic.slice(1)} guide ${i}`,
    description: `All about ${topic}.`,
    headings: headingsText(sections),
    body: lines.join("\n"),
    sections,
    lang: "en",
  };
}

/**
 * Runs `rounds` × 3 searches (whole words, a prefix being typed, a typo) on a snapshot of a small
 * index; returns the fewest results one of them found (each should find some: results shown and
 * highlighted are part of the path).
 */
export function warmSearch(rounds = 30): number {
  const built = createSiteDb();
  TOPICS.forEach((t, i) => [0, 1, 2].forEach((n) => addDoc(built, page(t, i * 3 + n))));
  const db = decodeSiteDb(encodeSiteDb(built).slice());
  let fewest = Infinity;
  for (let r = 0; r < rounds; r++) {
    const topic = TOPICS[r % TOPICS.length];
    for (
      const q of [
        `${topic} options`,
        topic.slice(0, 4),
        `${topic.slice(0, -2)}${topic.at(-1)}${topic.at(-2)} `,
      ]
    ) {
      fewest = Math.min(fewest, search(db, { query: q }).found);
    }
  }
  return fewest;
}

/** Words the deep warm-up's pages are written in: a made-up shop's manual. */
const STOP =
  "the a of to and in for is on with as by be this that it can are from or an at your you"
    .split(" ");
const CONTENT = (
  "ledger invoice order customer account payment refund shipping parcel warehouse stock item " +
  "price discount coupon report export import schedule backup restore archive template theme " +
  "field value setting option default limit timeout retry queue worker session token cache " +
  "create update delete list search filter sort group count total balance currency tax rate " +
  "configure enable disable install upgrade migrate connect verify sign rotate expire renew " +
  "when before after each every only never always first last next previous new old same " +
  "café naïve “quoted” — résumé über"
).split(" ");
const WORDS = [...STOP, ...CONTENT];
const NAMES = ["ledger_entry", "invoice.total", "retry_after", "stock.level", "cache_ttl"];

/** A small seeded generator: the same pages and queries in every process. */
function seeded(seed: number) {
  return () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

/** One of `xs`, as `next` draws it. */
const pickWith = (next: () => number) => <T>(xs: T[]) => xs[Math.floor(next() * xs.length)];

/** A long page of the deep warm-up: numbered sections, identifiers, text past one deflated block. */
function longPage(i: number, next: () => number) {
  const pick = pickWith(next);
  const sentence = () =>
    Array.from(
      { length: 8 + Math.floor(next() * 12) },
      () => next() < 0.05 ? pick(NAMES) : pick(WORDS),
    )
      .join(" ") + ".";
  const sections = Array.from({ length: 8 }, (_, k) => ({
    heading: `${k + 1}.${i % 4} ${pick(CONTENT)} ${pick(CONTENT)}`,
    anchor: `s${k}`,
  }));
  const parts = sections.flatMap((s) => [s.heading, ...Array.from({ length: 12 }, sentence)]);
  return {
    id: `/manual/${i}`,
    title: `${pick(CONTENT)} ${pick(CONTENT)} guide ${i}`,
    description: sentence(),
    headings: headingsText(sections),
    body: parts.join("\n"),
    sections,
    lang: "en",
  };
}

/**
 * A fresh process's first visitors, rehearsed while the service is quiet (lib/http/warm_path.ts
 * asks over HTTP). `store` is given the made-up manual's long pages, `pages` of them. Then `ask`
 * is given `searches` different queries as visitors type them, each asked once (as a first-seen
 * query: no answer comes from the result cache), one at a time. Every step waits a quiet spell
 * first, and then until no visitor has searched and no request has arrived for one (activity.ts
 * `quiet`): a visitor's search right after the start comes before any of it. It gives up after
 * `withinMs`, as the deep warm-up does. Resolves to how many `ask` said were answered.
 */
export async function rehearseVisitors(
  { store, ask, pages, searches, withinMs = 60_000 }: {
    store: (page: PageInput) => Promise<void>;
    ask: (query: string) => Promise<boolean>;
    pages: number;
    searches: number;
    /** It gives up once this has passed (a service that is never quiet needs no warm-up). */
    withinMs?: number;
  },
): Promise<number> {
  const end = performance.now() + withinMs;
  const sleep = () => new Promise((r) => setTimeout(r, SEARCH_QUIET_MS));
  await sleep();
  /** Waits until it is quiet; false once the time given has passed. */
  const turn = async () => {
    while (!quiet() && performance.now() < end) await sleep();
    return performance.now() < end;
  };
  const nextPage = seeded(7);
  for (let i = 0; i < pages; i++) {
    if (!await turn()) return 0;
    const { id, title, description, body, sections, lang } = longPage(i, nextPage);
    await store({ url: `https://manual.invalid${id}`, title, description, body, sections, lang });
  }
  const asked = new Set<string>(), next = seeded(11);
  let answered = 0;
  // Words, pairs and phrases of a hundred words make thousands of queries: `searches` are soon found.
  for (let round = 0; asked.size < searches && round < 20; round++) {
    for (const q of warmQueries(searches, next, { words: CONTENT, names: NAMES })) {
      if (asked.size >= searches || asked.has(q)) continue;
      asked.add(q);
      if (!await turn()) return answered;
      if (await ask(q)) answered++;
    }
  }
  return answered;
}

/**
 * Queries as visitors type them, of `words` (and `names`, identifiers; made of two words where
 * there are none): words, pairs, headings, prefixes, typos, identifiers.
 */
function* warmQueries(
  n: number,
  next: () => number,
  { words, names }: { words: string[]; names: string[] },
): Generator<string> {
  const pick = pickWith(next);
  for (let k = 0; k < n; k++) {
    const w = pick(words);
    const kind = k % 6;
    if (kind === 0) yield w;
    else if (kind === 1) yield `${w} ${pick(words)}`;
    else if (kind === 2) yield `how to ${w} the ${pick(words)}`;
    else if (kind === 3) yield w.slice(0, 3 + Math.floor(next() * 3));
    else if (kind === 4) yield w.length > 4 ? w.slice(0, 2) + w[3] + w[2] + w.slice(4) : `${w}s`;
    else yield names.length ? pick(names) : `${w}_${pick(words)}`;
  }
}

/**
 * The deep warm-up, step by step: a snapshot of 40 long pages loaded and its pass run, then
 * `searches` searches (facets counted, as the API asks by default). Each step is short; the
 * caller runs them while no visitor searches. Returns the searches that found pages.
 */
export function* warmSearchDeeply(searches = 400): Generator<void, number> {
  const next = seeded(7);
  const built = createSiteDb();
  for (let i = 0; i < 40; i++) {
    addDoc(built, longPage(i, next));
    yield;
  }
  const db = decodeSiteDb(encodeSiteDb(built).slice());
  yield* prepareIndex(db);
  return yield* searching(db, warmQueries(searches, next, { words: CONTENT, names: NAMES }));
}

/**
 * Searches `db` for each query, facets counted as the API asks by default, a step a search;
 * how many found pages.
 */
function* searching(db: SiteDb, queries: Iterable<string>): Generator<void, number> {
  let found = 0;
  for (const q of queries) {
    if (search(db, { query: q, facets: true }).found > 0) found++;
    yield;
  }
  return found;
}

/** Words of a site rehearsal draws its queries from: its most used. */
const REHEARSAL_WORDS = 64;
/** Searches of a rehearsal (~0.4 ms each on a 2,400-page site). */
const REHEARSAL_SEARCHES = 240;
/** An index is rehearsed on when it has this many documents at least… */
const REHEARSAL_MIN_DOCS = 100;
/** …and more than this many times those of the largest rehearsed on before it. */
const REHEARSAL_GROWTH = 1.25;
/** The documents of the largest index rehearsed on in this process (V8's code is the process's). */
let rehearsedDocs = 0;

/** Whether an index of `docs` documents is rehearsed on (`rehearsal`): the largest so far. */
export function rehearses(docs: number): boolean {
  return docs >= REHEARSAL_MIN_DOCS && docs > rehearsedDocs * REHEARSAL_GROWTH;
}

/**
 * A site's first searches rehearsed on its own index, step by step, while no visitor searches:
 * its most used words as visitors type them (warmQueries). The deep warm-up's 40 pages leave
 * the path compiled for a small index: after a 2,400-page upsert over HTTP, V8 compiled
 * search code again through the first 800 visitors' searches (132, then 92 functions
 * optimized in the first 400, then in the next; its helper threads 140 ms of CPU in the first 400
 * searches' 430 ms). Once per size the process has not rehearsed (`rehearses`). Searches keep
 * what they keep (read-ahead of the texts shown), nothing else. Returns the searches that
 * found pages.
 */
export function* rehearsal(db: SiteDb, searches = REHEARSAL_SEARCHES): Generator<void, number> {
  rehearsedDocs = Math.max(rehearsedDocs, docCount(db));
  const words = yield* mostUsedWords(db, REHEARSAL_WORDS);
  if (!words.length) return 0;
  const names = words.filter((w) => /[_.]/.test(w));
  return yield* searching(db, warmQueries(searches, seeded(11), { words, names }));
}

/**
 * Runs the deep warm-up in slices once no visitor has searched for a while (activity.ts
 * `quiet`), never while they search; gives up after `withinMs`. Resolves to the
 * searches that found pages, or null when it gave up.
 */
export async function warmWhileQuiet(searches = 400, withinMs = 60_000): Promise<number | null> {
  let found: number | null = null;
  const steps = (function* () {
    found = yield* warmSearchDeeply(searches);
  })();
  const end = performance.now() + withinMs;
  // Each look waits a quiet spell first: a search right after the start comes before it.
  while (performance.now() < end) {
    await new Promise((r) => setTimeout(r, SEARCH_QUIET_MS));
    if (await inTimeSlices(steps, quiet)) break;
  }
  return found;
}
