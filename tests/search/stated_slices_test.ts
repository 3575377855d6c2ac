/**
 * The pass after a change (indexes.ts prepare) lists, mines and merges the names a site's
 * pages state in pieces: it yields to searches between them, and what it ends with is what
 * mining the whole site at once finds, even when the site changes while it runs.
 */
import assert from "node:assert/strict";
import { addDoc, createSiteDb, type SiteDb } from "../../lib/search/engine/mod.ts";
import { removeDoc } from "../../lib/search/engine/store/site_db.ts";
import { forgetStated, statedEquivalences } from "../../lib/search/engine/query/stated.ts";
import { prepareIndex } from "../../lib/search/engine/query/rank.ts";

const LETTERS = "bcdfghjklmnpqrstvwz";

/** Page i of a manual: prose, and on every 50th page a definition of an abbreviation of its own. */
function page(i: number) {
  const k = i / 50, at = (n: number) => LETTERS[n % LETTERS.length];
  const [a, b, c] = [at(k), at(k * 3 + 1), at(k * 7 + 2)];
  const defines = i % 50 === 0
    ? ` The ${a}ano ${b}ero ${c}ium (${(a + b + c).toUpperCase()}) links the parts.`
    : "";
  const prose = Array.from({ length: 120 }, (_, k) => `word${(i * 13 + k) % 301}`).join(" ");
  return {
    id: `/manual/${i}`,
    title: `Part ${i}`,
    description: "",
    headings: "",
    body: prose + defines,
  };
}

function siteDb(ids: number[]): SiteDb {
  const db = createSiteDb();
  for (const i of ids) addDoc(db, page(i));
  return db;
}

const names = (db: SiteDb) => statedEquivalences(db).map((e) => e.words.join(" = ")).sort();
const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

/** Runs the pass to its end; how many times it yielded. */
function pass(db: SiteDb, midway?: (step: number) => void): number {
  let steps = 0;
  for (const _ of prepareIndex(db)) {
    steps++;
    midway?.(steps);
  }
  return steps;
}

Deno.test("stated names - the pass over 600 pages yields between pieces and ends with every name a whole mining finds", () => {
  forgetStated(); // no page mined before in this process
  const db = siteDb(range(600));
  assert.ok(pass(db) > 1, "mining 600 pages is cut into several steps");
  const whole = names(siteDb(range(600)));
  assert.equal(whole.length, 12);
  assert.deepEqual(names(db), whole);
});

Deno.test("stated names - after a change the pass's names are those of the pages now there", () => {
  const db = siteDb(range(600));
  pass(db);
  removeDoc(db, "/manual/100"); // its definition goes
  addDoc(db, page(650)); // another comes
  pass(db);
  const now = names(siteDb([...range(600).filter((i) => i !== 100), 650]));
  assert.deepEqual(names(db), now);
  assert.notDeepEqual(now, names(siteDb(range(600))));
});

Deno.test("stated names - a change while the pass is under way is taken up: it ends with the pages of the last version", () => {
  forgetStated();
  const db = siteDb(range(600));
  let changed = false;
  pass(db, () => {
    if (changed) return;
    changed = true;
    removeDoc(db, "/manual/0");
    addDoc(db, page(700));
  });
  assert.ok(changed);
  assert.deepEqual(names(db), names(siteDb([...range(599, 1), 700])));
});
