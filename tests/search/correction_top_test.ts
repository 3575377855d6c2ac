/**
 * A typo in a longer query on a small site, where every page matches the other words: the
 * correction changes no page of the first page of results, but it puts the one page about
 * the word meant among the first, so the visitor is shown it, with "Showing results for".
 */
import assert from "node:assert/strict";
import { rank } from "../../lib/search/engine/query/rank.ts";
import { DEFAULT_RANKING } from "../../lib/search/engine/query/weights.ts";
import { addDoc, createSiteDb, docAt, type SiteDb } from "../../lib/search/engine/store/site_db.ts";

/** A chapter of a small manual: one section, no description. */
const chapter = (id: string, title: string, body: string) => ({
  id,
  title,
  description: "",
  headings: "",
  body,
  sections: [],
});

/** Five chapters that all speak of the program and its options; one names the tool. */
function manual(): SiteDb {
  const db = createSiteDb();
  const chapters = [
    chapter("/ch1", "Introduction", "Each program has options. Read about the options first."),
    chapter("/ch2", "Installing", "Install the program, then set its options in a file."),
    chapter("/ch3", "Messages", "The program prints messages; options make it quiet."),
    chapter("/ch4", "Files", "The program reads files named by its options."),
    chapter("/ch5", "Maintainers", "Run the frobctl program once per release."),
  ];
  for (const c of chapters) addDoc(db, c);
  return db;
}

Deno.test("rank - a correction that puts the one page about the word meant among the first results is kept", () => {
  const db = manual();
  const typed = rank(db, "frboctl program options ");
  assert.deepEqual(typed.corrections, [{ from: "frboctl", to: "frobctl" }]);
  const first = typed.ids.slice(0, DEFAULT_RANKING.correctionTop).map((id) => docAt(db, id, 0).id);
  assert.ok(first.includes("/ch5"), `the tool's chapter among the first: ${first}`);
  // Every chapter is on the first page either way: what the correction changed is the order.
  assert.equal(typed.ids.length, 5);
});
