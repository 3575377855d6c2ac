/**
 * A large site's first searches rehearsed on its own index while no one searches (warm.ts
 * `rehearsal`): its most used words as visitors type them find pages, the site answers as it
 * would have without it, it runs once per size the process has not rehearsed, and never while
 * visitors search.
 */
import assert from "node:assert/strict";
import { PageStore } from "../../lib/sites/pages.ts";
import { SearchIndexes, Snapshots } from "../../lib/search/mod.ts";
import { noteSearch } from "../../lib/search/activity.ts";
import { rehearsal, rehearses } from "../../lib/search/warm.ts";
import { Vocab } from "../../lib/search/engine/store/vocab.ts";
import { runSteps } from "../../lib/search/engine/mod.ts";
import { answersOf, site } from "./sites.ts";

const TOOLS = ["lantern", "compass", "anchor", "rudder", "sextant", "hammock", "galley", "keel"];
const PARTS = ["hinge", "lens", "needle", "rope", "canvas", "plank", "bolt", "wick"];
const QUERIES = ["lantern wick", "compass needle", "rudder hinges", "storing the keel", "anch"];

const page = (i: number) => {
  const tool = TOOLS[i % TOOLS.length], part = PARTS[(i * 3) % PARTS.length];
  const sections = [`Caring for the ${tool}`, `The ${part} of a ${tool}`, "Storing it dry"];
  return {
    url: `/docs/${tool}/${i}`,
    title: `${tool} ${part} ${i}`,
    body: sections.map((h) => `${h}\nKeep the ${tool} ${part} dry; check_${part} yearly.`)
      .join("\n"),
    sections: sections.map((heading, k) => ({ heading, anchor: `s${k}` })),
  };
};

/** `pages` pages of a site upserted, then its index opened (and saved) and read ahead if quiet. */
async function opened(site: string, pages: number, rehearse: boolean, save = true) {
  const kv = await Deno.openKv(":memory:");
  const store = new PageStore(kv, Date.now);
  for (let i = 0; i < pages; i++) await store.upsert(site, page(i), 1_000);
  await new Promise((r) => setTimeout(r, 300)); // past a search's hold
  const ix = new SearchIndexes(store, { snapshots: new Snapshots(kv, Date.now), rehearse });
  await ix.refresh(site);
  if (save) await ix.flush();
  await ix.idle(); // the pass after the save's compaction, the read ahead and rehearsal after it
  return { ix, kv, close: () => (ix.discard(), kv.close()) };
}

Deno.test("rehearsal - a site's most used words as visitors type them find pages, in a step a search", () => {
  const db = site(Array.from({ length: 150 }, (_, i) => {
    const p = page(i);
    return { id: p.url, title: p.title, body: p.body, sections: p.sections.map((s) => s.heading) };
  }));
  const steps = rehearsal(db, 60);
  let step = steps.next(), n = 0;
  while (!step.done) step = steps.next(), n++;
  assert.ok(n >= 60, `a step a search at least (${n})`);
  assert.ok(step.value >= 48, `most of its 60 searches found pages (${step.value})`);
});

Deno.test("rehearsal - pages in other scripts, astral letters and long identifiers rehearse to the end without a throw", () => {
  const words = [
    "東京の地下鉄路線図と乗り換え案内",
    "مكتبة الإسكندرية الجديدة",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝒎𝒂𝒕𝒉",
    "get_object_or_404 django.contrib.admin.sites",
    "naïve café résumé Übersicht",
  ];
  const db = site(Array.from({ length: 120 }, (_, i) => ({
    id: `/p/${i}`,
    title: `${words[i % words.length]} ${i}`,
    body: Array.from({ length: 6 }, (_, k) => words[(i + k) % words.length]).join("\n"),
  })));
  const found = runSteps(rehearsal(db, 120));
  assert.ok(found > 0, `some of its searches found pages (${found})`);
});

Deno.test("rehearsal - the largest index so far is rehearsed once it is quiet, and answers as one that was not", async () => {
  assert.ok(rehearses(400) && !rehearses(99), "from 100 documents, the largest so far");
  const plain = await opened("site_plain", 400, false);
  const rehearsed = await opened("site_rehearsed", 400, true);
  try {
    assert.ok(!rehearses(400) && !rehearses(500), "rehearsed: 400 documents, not again up to 500");
    assert.ok(rehearses(501), "a larger index is rehearsed again");
    assert.deepEqual(
      await answersOf(rehearsed.ix, "site_rehearsed", QUERIES),
      await answersOf(plain.ix, "site_plain", QUERIES),
    );
  } finally {
    plain.close();
    rehearsed.close();
  }
});

Deno.test("rehearsal - not on an index opened, nor while visitors search; a change made while quiet is rehearsed", async () => {
  const site = "site_busy";
  const saved = await opened(site, 600, false); // its snapshot saved, not rehearsed
  const store = new PageStore(saved.kv, Date.now);
  const ix = new SearchIndexes(store, {
    snapshots: new Snapshots(saved.kv, Date.now),
    rehearse: true,
  });
  const change = async (i: number) => (await store.upsert(site, page(i), 1_000), ix.refresh(site));
  try {
    assert.ok(rehearses(600), "the largest so far");
    await ix.refresh(site); // opened from its snapshot while quiet
    await ix.idle();
    assert.ok(rehearses(600), "an index opened is not rehearsed on");

    let searching = true;
    const visitor = (async () => {
      while (searching) noteSearch(), await new Promise((r) => setTimeout(r, 20));
    })();
    try {
      await change(600); // caught up while a search comes every 20 ms
      await ix.idle();
      assert.ok(rehearses(601), "not rehearsed while visitors searched");
    } finally {
      searching = false;
      await visitor;
    }
    await new Promise((r) => setTimeout(r, 300)); // past the last search's hold
    await change(601);
    await ix.idle();
    assert.ok(!rehearses(602), "a change made while quiet is rehearsed");
  } finally {
    ix.discard();
    saved.close();
  }
});

Deno.test("rehearsal - a vocabulary's most used words: most used first, of 4 to 24 units, starting with a letter", () => {
  const vocab = new Vocab(8);
  const counts: Record<string, number> = {
    lantern: 9,
    keel: 12,
    "2024": 40, // not a letter first
    "_private": 30,
    ox: 50, // too short
    ["x".repeat(25)]: 60, // too long
    compass: 9, // a tie: slot order
    "résumé": 7,
    rudder: 3,
    wick: 1,
  };
  for (const [w, n] of Object.entries(counts)) vocab.set(w, n);
  const top = runSteps(vocab.mostUsed(4));
  assert.equal(top.length, 4);
  assert.equal(top[0], "keel");
  assert.deepEqual(new Set(top.slice(1, 3)), new Set(["lantern", "compass"]));
  assert.equal(top[3], "résumé");
  assert.deepEqual(runSteps(vocab.mostUsed(100)).length, 6, "every word that qualifies");
});
