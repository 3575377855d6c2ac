/**
 * A word being typed finds the pages of the words it begins, even where the stemmer indexes
 * them by a shorter form than what is typed so far ("shipping" as "ship").
 */
import assert from "node:assert/strict";
import { rank } from "../../lib/search/engine/query/rank.ts";
import { docAt } from "../../lib/search/engine/store/site_db.ts";
import { site } from "./sites.ts";

const page = (id: string, title: string, body: string) => ({ id, title, body });

function shop() {
  return site([
    page("/shipping", "Shipping", "Shipping takes two days; shipping abroad takes five."),
    page("/settings", "Account settings", "Change your settings: name, email, password."),
    page("/running", "Running shoes", "Shoes for running on roads and trails."),
    page("/about", "About us", "A family shop since 1990."),
  ]);
}

const first = (db: ReturnType<typeof shop>, q: string) => {
  const { ids } = rank(db, q);
  return ids.length ? docAt(db, ids[0], 0).id : null;
};

Deno.test("typing - every prefix a visitor types on the way to a word finds that word's page", () => {
  const db = shop();
  for (
    const [word, url] of [["shipping", "/shipping"], ["settings", "/settings"], [
      "running",
      "/running",
    ]]
  ) {
    for (let n = 3; n <= word.length; n++) {
      assert.equal(
        first(db, word.slice(0, n)),
        url,
        `"${word.slice(0, n)}" while typing "${word}"`,
      );
    }
  }
});

Deno.test("typing - a prefix no word of the site begins finds nothing, and a whole word is not completed", () => {
  const db = shop();
  assert.equal(first(db, "shipz"), null);
  // With the trailing space the word is complete: it is matched as written (or corrected).
  assert.notEqual(first(db, "shoes "), null);
  assert.equal(first(db, "xylo"), null);
});
