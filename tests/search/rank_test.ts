/**
 * `rank()` and the results made from it, on an index built in process (no HTTP app): field
 * weights, word coverage, prefixes, typo corrections (never into a common word, never one
 * the query did not need), stop words, the prior of code listings, and where a result links.
 */
import assert from "node:assert/strict";
import { rank } from "../../lib/search/engine/query/rank.ts";
import { DEFAULT_RANKING, priorOf } from "../../lib/search/engine/query/weights.ts";
import { search } from "../../lib/search/engine/presentation/results.ts";
import {
  addDoc,
  createSiteDb,
  type Doc,
  docAt,
  headingsText,
  type SiteDb,
} from "../../lib/search/engine/store/site_db.ts";

type Section = { heading: string; anchor: string };

/** A page as the index takes it; each section's heading is a line of the body. */
function page(id: string, title: string, body: string, sections: Section[] = []): Doc {
  return {
    id,
    title,
    description: "",
    headings: headingsText(sections),
    body,
    sections,
  };
}

function build(pages: Doc[]): SiteDb {
  const db = createSiteDb();
  for (const p of pages) addDoc(db, p);
  return db;
}

const urls = (db: SiteDb, q: string) => rank(db, q).ids.map((id) => docAt(db, id, 0).id);

/** Filler prose, different per page, that holds none of the words the tests search for. */
const filler = (n: number) =>
  Array.from({ length: n }, (_, i) => `Paragraph ${i} talks about roasting and brewing.`)
    .join("\n");

Deno.test("rank - a page whose title holds the word ranks before pages whose text mentions it", () => {
  const db = build([
    page("/body", "Opening hours", "We also sell a grinder for home use. " + filler(3)),
    page("/title", "Grinder", "Burr sets last for years. " + filler(3)),
    page("/none", "Contact", filler(4)),
  ]);
  assert.deepEqual(urls(db, "grinder "), ["/title", "/body"]);
  assert.ok(
    DEFAULT_RANKING.fieldWeight.title > DEFAULT_RANKING.fieldWeight.body,
    "the table says so",
  );
});

Deno.test("rank - pages that hold more of the query's words come first, whatever their BM25", () => {
  const db = build([
    page("/one", "Espresso espresso espresso", "Espresso, espresso and more espresso."),
    page("/both", "Cleaning", "Descale the espresso machine once a month."),
  ]);
  assert.deepEqual(urls(db, "espresso descale "), ["/both", "/one"]);
  const r = rank(db, "espresso descale ");
  assert.equal(r.found, 2);
  assert.deepEqual(r.words, ["espresso", "descale"]);
});

Deno.test("rank - the word being typed matches as a prefix, a finished word only as itself", () => {
  const db = build([
    page("/gift", "Gift cards", "Gift cards never expire."),
    page("/giraffe", "Mugs", "A mug with a giraffe on it."),
  ]);
  assert.deepEqual(urls(db, "gif"), ["/gift"], "typing: a prefix");
  const finished = rank(db, "gif ");
  assert.deepEqual(finished.corrections, [], "too short to correct");
  // A finished word no page has is looked up as a prefix too, at a lower weight.
  assert.deepEqual(urls(db, "gif "), ["/gift"]);
});

Deno.test("rank - a mistyped word is read as the most used word one edit away, and says so", () => {
  const db = build([
    page("/espresso", "Espresso", "Espresso is pulled at nine bars. Espresso beans."),
    page("/express", "Express delivery", "Express delivery in a day."),
  ]);
  const r = rank(db, "expresso ");
  assert.deepEqual(r.corrections, [{ from: "expresso", to: "espresso" }]);
  assert.equal(docAt(db, r.ids[0], 0).id, "/espresso");
});

Deno.test("rank - a word is never corrected into a stop word or a word too common to mean anything", () => {
  // "would" is one edit from "world" and the most used such word on the site.
  const db = build([
    page("/faq", "FAQ", "Would you like a receipt? We would ship it. You would love it."),
    page("/cups", "Cups", "A cup for 2018 and every other year."),
  ]);
  const r = rank(db, "who won the 2018 world cup");
  assert.deepEqual(r.corrections, [], "not 'would'");
  assert.deepEqual(r.words, ["won", "2018", "world", "cup"], "who and the are not searched");
  assert.equal(docAt(db, r.ids[0], 0).id, "/cups");
});

Deno.test("rank - a correction the query did not need is dropped: it must raise the result set", () => {
  // Twelve pages hold both of the other words; the corrected word only a page of its own.
  const pages = Array.from(
    { length: 12 },
    (_, i) => page(`/beans/${i}`, `Beans ${i}`, `Coffee beans of farm ${i}. ` + filler(2)),
  );
  pages.push(page("/tips", "Tips", "Tips for the barista. " + filler(2)));
  const db = build(pages);
  const r = rank(db, "coffee beans tipz ");
  assert.deepEqual(r.corrections, [], "tips would add nothing to the first page");
  assert.ok(r.ids.slice(0, 10).every((id) => docAt(db, id, 0).id.startsWith("/beans/")));

  // The same correction, once a page holds it beside the other words, is kept.
  addDoc(db, page("/guide", "Guide", "Coffee beans: storage tips. " + filler(2)));
  const kept = rank(db, "coffee beans tipz ");
  assert.deepEqual(kept.corrections, [{ from: "tipz", to: "tips" }]);
  assert.equal(docAt(db, kept.ids[0], 0).id, "/guide");
});

Deno.test("rank - a correction kept although no page shares it with the other words, as it brings its pages onto the first page", () => {
  const db = build([
    page("/listing", "retry.py", "meta = request.meta  # reqmeta"),
    page("/policy", "Settings", "referrer_mode sets the Referer header."),
    page("/other", "Other", filler(3)),
  ]);
  const r = rank(db, "reqmeta refererr_mode ");
  assert.deepEqual(r.corrections, [{ from: "refererr_mode", to: "referrer_mode" }]);
  assert.deepEqual(r.ids.map((id) => docAt(db, id, 0).id).sort(), ["/listing", "/policy"]);
});

Deno.test("rank - a listing of code comes after a prose page that matches as many words", () => {
  const listing = page("/source", "utils.py", "def tamper(): tamper(tamper(tamper))");
  const prose = page("/guide", "Guide", "How to tamper evenly, every time you brew.");
  assert.deepEqual(urls(build([listing, prose]), "tamper "), ["/source", "/guide"], "as text");
  assert.equal(priorOf({ codeShare: 0.1 }), 1);
  assert.equal(priorOf({ codeShare: 0.95 }), DEFAULT_RANKING.codePrior);
  const db = build([{ ...listing, codeShare: 0.95, prior: priorOf({ codeShare: 0.95 }) }, prose]);
  assert.deepEqual(urls(db, "tamper "), ["/guide", "/source"]);
});

Deno.test("results - stop words are neither searched nor highlighted, the words around them are", () => {
  const db = build([
    page("/grinder", "The grinder", "The grinder and the burrs of the machine."),
  ]);
  const { hits } = search(db, { query: "the grinder" });
  const marked = hits[0].highlights.flatMap((h) =>
    h.matches.map(([a, b]) => h.snippet.slice(a, b).toLowerCase())
  );
  assert.ok(marked.includes("grinder"));
  assert.ok(!marked.includes("the"), `marked: ${marked}`);
});

const csrfSections = [
  { heading: "How to use it", anchor: "how-to-use-it" },
  { heading: "Acquiring the token if CSRF cookies are off", anchor: "s-acquiring-token-csrf" },
  { heading: "CSRF and caching", anchor: "csrf-caching" },
  { heading: "CSRF_REJECT_HOOK", anchor: "csrf-reject-hook" },
];
const sectioned = (sections: Section[]) =>
  sections.map((s) => `${s.heading}\n${filler(2)} The ${s.heading} part.`).join("\n");

Deno.test("results - a one-word query that is the page's title links to the top of the page", () => {
  const sections = [
    { heading: "Listening to signals", anchor: "listening" },
    { heading: "Signal.connect(receiver)", anchor: "Signal.connect" },
  ];
  const db = build([page("/topics/signals", "Signals", sectioned(sections), sections)]);
  const [hit] = search(db, { query: "signals" }).hits;
  assert.equal(hit.url, "/topics/signals");
  assert.ok(hit.sections.length > 0, "its sections still listed below it");
});

Deno.test("results - a word that heads several sections alike links to the page, not one of them", () => {
  const db = build([
    page(
      "/ref/csrf",
      "Cross Site Request Forgery protection",
      sectioned(csrfSections),
      csrfSections,
    ),
  ]);
  const [hit] = search(db, { query: "csrf" }).hits;
  assert.equal(hit.url, "/ref/csrf");
});

Deno.test("results - a section whose heading names the query better than the title and every other heading is the target", () => {
  const db = build([
    page(
      "/ref/csrf",
      "Cross Site Request Forgery protection",
      sectioned(csrfSections),
      csrfSections,
    ),
  ]);
  const [hit] = search(db, { query: "csrf caching" }).hits;
  assert.equal(hit.url, "/ref/csrf#csrf-caching");
  assert.equal(hit.sections[0].title, "CSRF and caching");
  // An API heading that names the query whole, among headings that name a part of it.
  const api = [
    { heading: "QuerySet API", anchor: "queryset-api" },
    { heading: "QuerySet.filter(**kwargs)", anchor: "models.QuerySet.filter" },
    { heading: "QuerySet.exclude(**kwargs)", anchor: "models.QuerySet.exclude" },
  ];
  const db2 = build([page("/ref/querysets", "Reference", sectioned(api), api)]);
  assert.equal(
    search(db2, { query: "QuerySet.filter" }).hits[0].url,
    "/ref/querysets#models.QuerySet.filter",
  );
  assert.equal(search(db2, { query: "queryset" }).hits[0].url, "/ref/querysets", "a tie: the page");
});

Deno.test("rank - the page that defines a name comes before release notes that mention it", () => {
  const notes = page(
    "/changes",
    "Version 4.2",
    "Added frobulate_depth. frobulate_depth now defaults to 8; frobulate_depth can be negative.",
  );
  const reference = page(
    "/reference",
    "Settings",
    "frobulate_depth sets how deep the grinder goes, in steps of a millimetre.",
  );
  const sections = (titles: string[]) => titles.map((heading) => ({ heading, anchor: "" }));
  assert.deepEqual(urls(build([notes, reference]), "frobulate_depth "), ["/changes", "/reference"]);
  const changelog = {
    ...notes,
    title: "Changes",
    sections: sections(["Version 4.2.1", "Version 4.2", "4.1 (2024-03-01)", "Thanks"]),
  };
  const prior = priorOf({
    title: changelog.title,
    headings: changelog.sections.map((s) => s.heading),
  });
  assert.equal(prior, DEFAULT_RANKING.changePrior);
  assert.deepEqual(urls(build([{ ...changelog, prior }, reference]), "frobulate_depth "), [
    "/reference",
    "/changes",
  ]);
});
