import assert from "node:assert/strict";
import { findMatches, makeMatcher } from "../../lib/search/engine/presentation/highlight.ts";
import { headingMatch } from "../../lib/search/engine/presentation/sections.ts";

/** How much of a query (its words, folded) a heading names, as a result's sections weigh it. */
function named(heading: string, words: string[], stems: string[] = []) {
  const match = makeMatcher(words, stems);
  return headingMatch(heading, findMatches(heading, match), match);
}

Deno.test("heading match - a word said twice in other cases names the query once", () => {
  assert.deepEqual(named("Model fields: MODEL and model", ["model"]), { inHeading: 1, whole: 1 });
});

Deno.test("heading match - a longer word names its root, but only the word itself counts as whole", () => {
  assert.deepEqual(named("Models and managers", ["model"]), { inHeading: 1, whole: 0 });
  assert.deepEqual(named("Models and the model", ["model"]), { inHeading: 1, whole: 1 });
  // Two query words: each named once, whole or not.
  assert.deepEqual(named("Signals for model saving", ["model", "save"], ["sav"]), {
    inHeading: 2,
    whole: 1,
  });
});

Deno.test("heading match - a root longer than the word it starts does not name it", () => {
  // "cache" is a word of its own, not the start of "caches" that the query asked for.
  assert.deepEqual(named("Cache backends", ["caches"]), { inHeading: 0, whole: 0 });
});

Deno.test("heading match - accented words are folded, in any case, as plain ones are", () => {
  assert.deepEqual(named("Le CAFÉ et le café", ["cafe"]), { inHeading: 1, whole: 1 });
  assert.deepEqual(named("Cafés du monde", ["cafe"]), { inHeading: 1, whole: 0 });
});
