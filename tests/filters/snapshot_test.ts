/** Filters in index snapshots: saved, loaded with the same answers, kept current after a load. */
import assert from "node:assert/strict";
import { PageStore } from "../../lib/sites/pages.ts";
import { SearchIndexes, Snapshots } from "../../lib/search/mod.ts";

const SITE = "site_filters";
const LEVELS = ["Beginner", "Advanced", "Expert"];

/** 70 pages over three sections, each with a level, some in two categories. */
function corpus(n = 70) {
  return Array.from({ length: n }, (_, i) => ({
    url: `/${["guides", "shop", "blog"][i % 3]}/kettle-${i}`,
    title: `Kettle ${i}`,
    body: `Kettle number ${i}: how to descale a kettle.`,
    lang: i % 7 ? "en" : "fr",
    filters: {
      level: [LEVELS[i % 3 === 0 ? 0 : i % 2 ? 1 : 2]],
      category: i % 4 ? ["Kit"] : ["Kit", "Guides"],
    },
  }));
}

const ASKS: [string, Map<string, string[]>][] = [
  ["kettle", new Map()],
  ["kettle", new Map([["level", ["Beginner"]]])],
  ["kettle", new Map([["level", ["Advanced", "Expert"]], ["section", ["shop"]]])],
  ["descale", new Map([["category", ["Guides"]], ["lang", ["fr"]]])],
  ["kettle", new Map([["colour", ["Red"]]])],
];

async function answers(ix: SearchIndexes) {
  const out = [];
  for (const [q, filters] of ASKS) {
    out.push(await ix.search(SITE, { query: q, perPage: 100, filters, facets: true }));
  }
  return out;
}

async function rig() {
  const kv = await Deno.openKv(":memory:");
  const pages = new PageStore(kv, Date.now);
  for (const p of corpus()) await pages.upsert(SITE, p, 10_000);
  const instance = () => new SearchIndexes(pages, { snapshots: new Snapshots(kv, Date.now) });
  return { kv, pages, instance };
}

Deno.test("filters snapshot - a loaded index filters and counts facets exactly as the one built from the pages", async () => {
  const { kv, instance } = await rig();
  const a = instance();
  const expected = await answers(a);
  assert.equal(expected[0].found, 70);
  assert.equal(expected[1].found, 24, "i % 3 === 0: 24 of 70");
  assert.ok(expected[2].hits.every((h) => h.url.startsWith("/shop/")));
  assert.equal(expected[4].found, 0);
  assert.deepEqual(expected[0].facets?.section, [
    { value: "guides", count: 24 },
    { value: "blog", count: 23 },
    { value: "shop", count: 23 },
  ]);
  await a.flush();
  const b = instance();
  assert.deepEqual(await answers(b), expected);
  assert.deepEqual(b.opened, { loaded: 1, built: 0 }, "loaded, not rebuilt");
  kv.close();
});

Deno.test("filters snapshot - after a load, upserts and deletes (also past the snapshot's last document) keep filters current", async () => {
  const { kv, pages, instance } = await rig();
  const a = instance();
  await answers(a);
  await a.flush();
  const b = instance();
  await answers(b);
  assert.equal(b.opened.loaded, 1);
  // 100 new Expert pages (ids far past the loaded sets' words), one page loses its filters,
  // one is deleted.
  for (let i = 0; i < 100; i++) {
    await pages.upsert(SITE, {
      url: `/new/kettle-${i}`,
      title: `New kettle ${i}`,
      body: "A new kettle.",
      filters: { level: ["Expert"] },
    }, 10_000);
  }
  await pages.upsert(SITE, { url: "/guides/kettle-0", title: "Kettle 0", body: "Kettle." }, 10_000);
  await pages.remove(SITE, "/shop/kettle-1");
  await b.refresh(SITE);
  const level = (v: string) => new Map([["level", [v]]]);
  const beginner = await b.search(SITE, {
    query: "kettle",
    perPage: 200,
    filters: level("Beginner"),
  });
  assert.equal(beginner.found, 23, "page 0 lost its level");
  const expert = await b.search(SITE, {
    query: "kettle",
    perPage: 200,
    filters: level("Expert"),
    facets: true,
  });
  assert.equal(expert.found, 100 + 23);
  assert.deepEqual(expert.facets?.section?.[0], { value: "new", count: 100 });
  const advanced = await b.search(SITE, {
    query: "kettle",
    perPage: 200,
    filters: level("Advanced"),
  });
  assert.ok(!advanced.hits.some((h) => h.url === "/shop/kettle-1"));
  assert.equal(advanced.found, 22);
  // Saved again, loaded again: the same.
  const before = await answers(b);
  await b.flush();
  const c = instance();
  assert.deepEqual(await answers(c), before);
  assert.equal(c.opened.loaded, 1);
  kv.close();
});

Deno.test("filters snapshot - a snapshot of the codec before filters is not loaded: the index is rebuilt with its filters", async () => {
  const { kv, instance } = await rig();
  const a = instance();
  const expected = await answers(a);
  await a.flush();
  const head = (await kv.get<{ codec: number }>(["snappage", SITE, "head"])).value!;
  await kv.set(["snappage", SITE, "head"], { ...head, codec: 4 });
  const b = instance();
  assert.deepEqual(await answers(b), expected);
  assert.deepEqual(b.opened, { loaded: 0, built: 1 });
  kv.close();
});
