import assert from "node:assert/strict";
import { citedOnly, renumber } from "../../lib/answers/citations.ts";

Deno.test("citations - renumbered by first use, groups kept, unknown numbers dropped", () => {
  const r = renumber("Beta [3]. Alpha [1][3]. Gamma [2, 9]. Nothing [8].", 3);
  assert.equal(r.answer, "Beta [1]. Alpha [2, 1]. Gamma [3]. Nothing.");
  assert.deepEqual(r.used, [3, 1, 2]);
  assert.deepEqual(renumber("No citations at all.", 2), {
    answer: "No citations at all.",
    used: [],
  });
});

Deno.test("citations - sources are cut to the cited ones, in the order of first citation", () => {
  const got = citedOnly("B first [2], then A [1]; C is never cited.", ["A", "B", "C"]);
  assert.equal(got.answer, "B first [1], then A [2]; C is never cited.");
  assert.deepEqual(got.sources, ["B", "A"]);
});
