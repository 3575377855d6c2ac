/**
 * What a site's pages share (search/analysis/site_name.ts): the name its titles repeat and
 * the language most pages declare, kept right as pages come and go, through a snapshot's
 * entries, and whatever characters a title holds.
 */
import assert from "node:assert/strict";
import { SiteName } from "../../lib/search/engine/analysis/site_name.ts";

const page = (i: number, name = "Acme docs") => [`/p${i}`, `Topic ${i} — ${name}`] as const;

Deno.test("site name - the name most titles end with, and the language most pages declare", () => {
  const names = new SiteName();
  for (let i = 0; i < 4; i++) names.add(...page(i), i < 3 ? "en-GB" : "fr");
  assert.equal(names.current(), ">acme docs");
  assert.equal(names.language(), "en");
  assert.equal(names.strip("Topic 2 — Acme docs", names.current()), "Topic 2");
  // Fewer than half the pages share it once others come: no name.
  for (let i = 4; i < 9; i++) names.add(`/q${i}`, `Other page ${i}`);
  assert.equal(names.current(), "");
  // They go again: the name is back; a page noted again counts once.
  for (let i = 4; i < 9; i++) names.remove(`/q${i}`);
  names.add(...page(0), "en");
  assert.equal(names.size, 4);
  assert.equal(names.current(), ">acme docs");
});

Deno.test("site name - a snapshot's entries give back the same facts, and pages go from it as before", () => {
  const names = new SiteName();
  for (let i = 0; i < 6; i++) names.add(...page(i), "de");
  names.add("/plain", "A title with no separator", "de");
  const back = SiteName.from(names.entries());
  assert.deepEqual(back.entries(), names.entries());
  assert.equal(back.key(), names.key());
  assert.equal(back.size, 7);
  // Each page's affixes as noted: the name after, the title's own start before, the language.
  assert.deepEqual(new Map(back.entries()).get("/p1"), [">acme docs", "<topic 1", "@de"]);
  assert.deepEqual(new Map(back.entries()).get("/plain"), ["@de"]);
  for (let i = 0; i < 6; i++) back.remove(`/p${i}`);
  back.remove("/plain");
  assert.equal(back.size, 0);
  assert.equal(back.key(), "\n");
});

Deno.test("site name - titles holding NUL and other control characters count and go like any other", () => {
  const names = new SiteName();
  for (let i = 0; i < 4; i++) names.add(`/n${i}`, `Part\u0000${i} — Acme\u0000 docs\n`, "en\u0000");
  assert.equal(names.current(), ">acme docs", "the name they share is found, NUL taken out");
  const back = SiteName.from(names.entries());
  assert.equal(back.key(), names.key());
  for (const n of [names, back]) {
    for (let i = 0; i < 4; i++) n.remove(`/n${i}`);
    assert.equal(n.size, 0);
    assert.equal(n.key(), "\n", "nothing left counted once every page went");
  }
});

Deno.test("site name - what a snapshot keeps gives back the same facts without counting a page, and pages come and go from it", () => {
  const names = new SiteName();
  for (let i = 0; i < 6; i++) names.add(...page(i), "de");
  names.add("/plain", "A title with no separator", "de");
  // Through JSON, as a snapshot holds it.
  const back = SiteName.from(JSON.parse(JSON.stringify(names.saved())));
  assert.equal(back.key(), names.key());
  assert.equal(back.size, 7);
  assert.deepEqual(back.saved(), names.saved(), "saved again unchanged, no page made a Map entry");
  assert.deepEqual(back.entries(), names.entries());
  // A page that goes, one that comes: counted as they would be in the SiteName saved.
  for (const n of [names, back]) {
    n.remove("/p0");
    n.add("/p9", "Topic 9 — Other docs", "fr");
  }
  assert.equal(back.key(), names.key());
  assert.deepEqual(back.entries(), names.entries());
  for (let i = 1; i < 6; i++) back.remove(`/p${i}`);
  assert.equal(back.current(), "", "two pages left: no shared name");
  assert.equal(back.size, 2);
});

Deno.test("site name - what is not a SiteName's saved form is refused, not half read", () => {
  for (
    const bad of [{ urls: ["/a"], held: [], counts: [] }, { urls: "/a", held: [], counts: [] }, {}]
  ) {
    assert.throws(() => SiteName.from(bad as never), /site names/);
  }
});
