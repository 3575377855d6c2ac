import assert from "node:assert/strict";
import { warmSearch, warmWhileQuiet } from "../../lib/search/mod.ts";
import { warmSearchDeeply } from "../../lib/search/warm.ts";
import { noteSearch } from "../../lib/search/activity.ts";

Deno.test("warm-up - each of the start's searches (whole words, a prefix, a typo) finds pages, so the whole path runs", () => {
  const fewest = warmSearch(6);
  assert.ok(fewest >= 1, `every search found a page (the fewest: ${fewest})`);
  assert.equal(warmSearch(6), fewest, "the same each time: nothing of it is kept");
});

Deno.test("warm-up - the deep warm-up searches long pages and finds pages for nearly every query, in short steps", () => {
  const steps = warmSearchDeeply(120);
  let step = steps.next(), n = 0;
  while (!step.done) step = steps.next(), n++;
  assert.ok(n > 120, `one step a page and a search at least (${n})`);
  assert.ok(step.value >= 108, `at least 90 % of its searches found pages (${step.value})`);
});

Deno.test("warm-up - the deep warm-up waits while visitors search, and runs once they pause", async () => {
  // Searches every 20 ms for 600 ms: the warm-up, given 500 ms, gives up without running.
  let searching = true;
  const visitor = (async () => {
    while (searching) noteSearch(), await new Promise((r) => setTimeout(r, 20));
  })();
  noteSearch();
  const busy = await warmWhileQuiet(40, 500);
  searching = false;
  await visitor;
  assert.equal(busy, null, "gave up: searches never paused");
  // Quiet: it runs to the end.
  const quiet = await warmWhileQuiet(40, 5_000);
  assert.ok(quiet !== null && quiet >= 36, `ran while quiet (${quiet})`);
});
