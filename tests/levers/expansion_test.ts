import assert from "node:assert/strict";
import { compileCurations } from "../../lib/levers/curations.ts";
import { holdsPhrase, oneEditApart, phraseKey } from "../../lib/levers/normalise.ts";
import { distance } from "../../lib/levers/suggestions.ts";
import { compileSynonyms } from "../../lib/levers/synonyms.ts";

const known = (...words: string[]) => (w: string) => words.includes(w);

Deno.test("expansion - a two-way group makes each word find the others, never itself", () => {
  const expand = compileSynonyms([{ id: "a", words: ["tee", "T-Shirt", "tshirt"] }])!;
  assert.deepEqual(expand(["tee"], known()), [
    { from: 0, to: 1, phrases: [["t-shirt"], ["tshirt"]] },
  ]);
  assert.deepEqual(expand(["cheap", "tshirt"], known())[0].phrases, [["tee"], ["t-shirt"]]);
  assert.equal(expand(["cheap", "tshirt"], known())[0].from, 1);
});

Deno.test("expansion - a one-way mapping expands only its word", () => {
  const expand = compileSynonyms([{ id: "a", word: "NYC", means: ["New York"] }])!;
  assert.deepEqual(expand(["nyc"], known()), [{ from: 0, to: 1, phrases: [["new", "york"]] }]);
  assert.deepEqual(expand(["new", "york"], known("new", "york")), []);
});

Deno.test("expansion - the longest phrase of the query that is a synonym wins, accents and case folded", () => {
  const expand = compileSynonyms([
    { id: "a", words: ["new york", "big apple"] },
    { id: "b", words: ["new york city", "nyc"] },
    { id: "c", words: ["café", "coffee shop"] },
  ])!;
  assert.deepEqual(expand(["new", "york", "city", "hotels"], known()), [
    { from: 0, to: 3, phrases: [["nyc"]] },
  ]);
  assert.deepEqual(expand(["cafe", "new", "york"], known()), [
    { from: 0, to: 1, phrases: [["coffee", "shop"]] },
    { from: 1, to: 3, phrases: [["big", "apple"]] },
  ]);
});

Deno.test("expansion - a word no page uses, one edit from a synonym, is read as that synonym; a word pages use is not", () => {
  const expand = compileSynonyms([{ id: "a", words: ["sweatshirt", "hoodie"] }])!;
  assert.deepEqual(expand(["sweatshrit"], known()), [
    { from: 0, to: 1, phrases: [["sweatshirt"], ["hoodie"]] },
  ]);
  assert.deepEqual(expand(["hoodies"], known("hoodies")), []);
  // Short words are never read as typos (too many neighbours).
  const short = compileSynonyms([{ id: "b", words: ["tee", "shirt"] }])!;
  assert.deepEqual(short(["tea"], known()), []);
});

Deno.test("expansion - no synonyms compile to no expansion", () => {
  assert.equal(compileSynonyms([]), undefined);
  assert.equal(compileCurations([]), undefined);
});

Deno.test("curation matching - exact compares the whole normalised query; contains looks for whole words", () => {
  const place = compileCurations([
    { id: "1", query: "Refund", match: "exact", pin: ["/refunds", "/contact"], hide: [] },
    { id: "2", query: "refund policy", match: "contains", pin: ["/policy"], hide: ["/old"] },
    { id: "3", query: "policy", match: "contains", pin: ["/old", "/refunds"], hide: [] },
  ])!;
  assert.deepEqual(place("  REFUND ")?.pin, ["/refunds", "/contact"]);
  assert.deepEqual(place("refund?")?.pin, ["/refunds", "/contact"]);
  assert.equal(place("refunds"), null);
  const both = place("the Refund  Policy, please")!;
  // A page one curation hides is never pinned by another; pins keep the lists' order.
  assert.deepEqual(both.pin, ["/policy", "/refunds"]);
  assert.deepEqual([...both.hide], ["/old"]);
  assert.equal(place("impolicy"), null);
});

Deno.test("normalise - phrase keys, whole-word containment, one edit and edit distance", () => {
  assert.equal(phraseKey("  Crème   BRÛLÉE! "), "creme brulee");
  assert.ok(holdsPhrase("how to get a refund fast", "get a refund"));
  assert.ok(!holdsPhrase("refunds", "refund"));
  assert.ok(oneEditApart("tshirt", "tshrit"));
  assert.ok(oneEditApart("tshirt", "tshirts"));
  assert.ok(oneEditApart("tshirt", "tshrt"));
  assert.ok(oneEditApart("tshirt", "tsbirt"));
  assert.ok(!oneEditApart("tshirt", "tshirt"));
  assert.ok(!oneEditApart("tshirt", "shirts"));
  assert.equal(distance("recieve", "receive"), 1);
  assert.equal(distance("colour", "color"), 1);
  assert.equal(distance("abcdef", "badcef"), 2);
  assert.equal(distance("kitten", "sitting"), 3);
});
