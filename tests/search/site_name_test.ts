/**
 * What a site's pages share (search/analysis/site_name.ts): the name its titles repeat and
 * the language most pages declare, kept right as pages come and go, through a snapshot's
 * entries, and whatever characters a title holds.
 */
import assert from "node:assert/strict";
import { SiteName } from "../../lib/search/engine/analysis/site_name.ts";
import { seeded } from "../fixtures/seeded.ts";

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

/** The leading name and language as read off every count, first counted most (the definition). */
function byReading(names: SiteName): [string, string] {
  const { counts } = names.saved();
  let name = ["", 0] as [string, number], lang = ["", 0] as [string, number];
  for (const [a, n] of counts) {
    if (a[0] === "@") lang = n > lang[1] ? [a, n] : lang;
    else name = n > name[1] ? [a, n] : name;
  }
  const shared = name[1] >= 3 && name[1] * 2 >= names.size;
  return [shared ? name[0] : "", lang[0].slice(1)];
}

Deno.test("site name - the facts kept as pages come and go are those read off every count, ties and all", () => {
  // One counted first, passed, then caught up with: the first counted leads again.
  const tied = new SiteName();
  tied.add("/a", "A", "de");
  tied.add("/b", "B", "en");
  tied.add("/c", "C", "en");
  assert.equal(tied.language(), "en");
  tied.add("/d", "D", "de");
  assert.equal(tied.language(), "de");
  const draw = seeded(7);
  const rand = (n: number) => Math.floor(draw() * n);
  // Few names and languages, so counts tie, pass each other, fall to nothing and come back.
  const suffixes = ["Acme docs", "Acme", "Guide", "Beta docs"];
  const langs = ["", "en", "de", "fr-CA", "de_AT"];
  for (let round = 0; round < 20; round++) {
    const names = round % 2 ? SiteName.from(new SiteName().saved()) : new SiteName();
    for (let step = 0; step < 400; step++) {
      const url = `/p${rand(8)}`;
      if (rand(4) === 0) names.remove(url);
      else {
        const title = rand(5) === 0 ? `Page ${rand(9)}` : `Page ${rand(9)} — ${suffixes[rand(4)]}`;
        names.add(url, title, langs[rand(5)]);
      }
      assert.deepEqual([names.current(), names.language()], byReading(names), `step ${step}`);
      if (step % 97 === 96) {
        // A snapshot's form mid-way: the facts read back the same, and go on the same.
        const again = SiteName.from(names.saved());
        assert.deepEqual([again.current(), again.language()], byReading(names));
      }
    }
  }
});
