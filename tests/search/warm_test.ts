import assert from "node:assert/strict";
import { rehearseVisitors, warmSearch, warmWhileQuiet } from "../../lib/search/mod.ts";
import { warmSearchDeeply } from "../../lib/search/warm.ts";
import { noteArrival, noteSearch } from "../../lib/search/activity.ts";

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

Deno.test("rehearseVisitors - gives up when the service is never quiet, having asked nothing", async () => {
  const stored: string[] = [], asked: string[] = [];
  noteArrival();
  const arriving = setInterval(noteArrival, 50);
  try {
    const started = performance.now();
    const answered = await rehearseVisitors({
      pages: 2,
      searches: 10,
      withinMs: 600,
      store: (page) => Promise.resolve(void stored.push(page.url)),
      ask: (q) => Promise.resolve(asked.push(q) > 0),
    });
    const took = performance.now() - started;
    assert.equal(answered, 0);
    assert.deepEqual([stored.length, asked.length], [0, 0]);
    assert.ok(took >= 600 && took < 2000, `gave up after ${took.toFixed(0)} ms`);
  } finally {
    clearInterval(arriving);
  }
});

Deno.test("rehearseVisitors - stores the pages, then asks each query once while quiet", async () => {
  const stored: string[] = [], asked: string[] = [];
  await new Promise((r) => setTimeout(r, 300)); // quiet: nothing arrived or searched since
  const answered = await rehearseVisitors({
    pages: 3,
    searches: 50,
    store: (page) => Promise.resolve(void stored.push(page.url)),
    ask: (q) => Promise.resolve(asked.push(q) % 5 !== 0), // every fifth "fails"
  });
  assert.equal(stored.length, 3);
  assert.equal(asked.length, 50);
  assert.equal(new Set(asked).size, 50, "each query once");
  assert.equal(answered, 40);
});
