import assert from "node:assert/strict";
import { warmSearch } from "../../lib/search/mod.ts";

Deno.test("warm-up - each of the start's searches (whole words, a prefix, a typo) finds pages, so the whole path runs", () => {
  const fewest = warmSearch(6);
  assert.ok(fewest >= 1, `every search found a page (the fewest: ${fewest})`);
  assert.equal(warmSearch(6), fewest, "the same each time: nothing of it is kept");
});
