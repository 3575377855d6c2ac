/** Suggestions learnt from reformulations: the later query of a typing session that found pages. */
import assert from "node:assert/strict";
import { QUIET_MS, SETTLE_MS } from "../../lib/analytics/typing.ts";
import {
  admin,
  createSite,
  manualClock,
  putPages,
  search,
  startApp,
  type TestApp,
  type TestSite,
} from "../helpers.ts";
import { lever, SHOP, urls } from "./helpers.ts";

/** One visitor's live requests, each in the same typing session; returns what each found. */
async function type(t: TestApp, site: TestSite, session: string, queries: string[]) {
  const found: number[] = [];
  for (const q of queries) {
    const r = await search(
      t,
      site.publicKey,
      `q=${encodeURIComponent(q)}&session=visitor-${session}`,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    found.push(r.body.meta.total ?? r.body.results.length);
  }
  return found;
}

/** Lets every session go quiet and settle, flushing the analytics as their timer would. */
async function settle(t: TestApp, clock: ReturnType<typeof manualClock>) {
  clock.advance(QUIET_MS + 1);
  await t.services.analytics.flush();
  clock.advance(SETTLE_MS + 1);
  await t.services.analytics.flush();
}

async function suggestions(t: TestApp, site: TestSite) {
  const res = await t.call(`/api/admin/sites/${site.id}/suggestions`, admin(site.adminKey));
  assert.equal(res.status, 200);
  return (await res.json()).suggestions;
}

async function shop() {
  const clock = manualClock();
  const t = await startApp({ clock });
  const site = await createSite(t, "pro");
  await putPages(t, site, SHOP);
  return { t, site, clock };
}

Deno.test("suggestions reform - visitors who found nothing for “tshrit” and then pages for “t-shirt” yield that synonym, and applying it makes “tshrit” find the page", async () => {
  const { t, site, clock } = await shop();
  try {
    assert.deepEqual(
      (await search(t, site.publicKey, "q=tshrit")).body.results,
      [],
      "the misspelling finds nothing by itself",
    );
    for (let v = 0; v < 3; v++) {
      const [missed, found] = await type(t, site, `v${v}`, ["tshrit", "T-shirt"]);
      assert.equal(missed, 0);
      assert.ok(found > 0);
    }
    await settle(t, clock);
    const list = await suggestions(t, site);
    const s = list.find((x: { query: string }) => x.query === "tshrit");
    assert.ok(s, JSON.stringify(list));
    assert.equal(s.kind, "synonym");
    assert.equal(s.to, "t-shirt");
    assert.equal(s.searches, 4, "the direct search and the three visitors");
    assert.equal(s.why, "3 visitors who searched “tshrit” found pages with “t-shirt” next.");
    assert.deepEqual(s.apply, { word: "tshrit", means: ["t-shirt"] });
    assert.equal(list.filter((x: { query: string }) => x.query === "tshrit").length, 1);

    const put = await lever(t, site, "synonyms", { synonyms: [s.apply] });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(urls((await search(t, site.publicKey, "q=tshrit")).body), ["/shirts"]);
    const after = await suggestions(t, site);
    assert.equal(after.some((x: { query: string }) => x.query === "tshrit"), false);
  } finally {
    t.close();
  }
});

Deno.test("suggestions reform - deleting back from a query that found nothing to the word it misspelt records no reformulation", async () => {
  const { t, site, clock } = await shop();
  try {
    for (let v = 0; v < 3; v++) {
      // A longer query that found nothing, deleted back to one that finds pages.
      const found = await type(t, site, `d${v}`, ["hoodiesxq", "hoodiesx", "hoodies"]);
      assert.equal(found[0], 0);
      assert.ok(found[2] > 0);
    }
    await settle(t, clock);
    const pairs = [];
    for await (const e of t.kv.list({ prefix: ["an", site.id] })) {
      if (e.key[3] === "r") pairs.push(e.key.slice(4));
    }
    assert.deepEqual(pairs, []);
    const list = await suggestions(t, site);
    assert.equal(list.some((x: { to: string }) => x.to === "hoodies"), false);
  } finally {
    t.close();
  }
});

Deno.test("suggestions reform - a visitor who deletes back from a query that found nothing and types another is counted once, also when pressing Enter", async () => {
  const { t, site, clock } = await shop();
  try {
    // Deleting back letter by letter, then typing the right word, then pressing Enter.
    await type(t, site, "a", ["tshrit", "tshri", "tsh", "t", "t-", "t-shirt"]);
    await search(t, site.publicKey, "q=t-shirt");
    await type(t, site, "b", ["tshrit", "tshr", "t-shirt"]);
    await settle(t, clock);
    const pairs: [unknown[], bigint][] = [];
    for await (const e of t.kv.list<Deno.KvU64>({ prefix: ["an", site.id] })) {
      if (e.key[3] === "r") pairs.push([e.key.slice(4), e.value.value]);
    }
    assert.deepEqual(pairs, [[["tshrit", "t-shirt"], 2n]]);
    const s = (await suggestions(t, site)).find((x: { query: string }) => x.query === "tshrit");
    assert.equal(s?.why, "2 visitors who searched “tshrit” found pages with “t-shirt” next.");
  } finally {
    t.close();
  }
});

Deno.test("suggestions reform - a later query too long for a synonym's phrase is offered as its words that titles hold", async () => {
  const { t, site, clock } = await shop();
  try {
    const later = "warm brushed cotton hoodies with a kangaroo pocket";
    for (let v = 0; v < 2; v++) {
      const [missed, found] = await type(t, site, `h${v}`, ["hoodyzz", later]);
      assert.equal(missed, 0);
      assert.ok(found > 0);
    }
    await settle(t, clock);
    const s = (await suggestions(t, site)).find((x: { query: string }) => x.query === "hoodyzz");
    assert.equal(s?.to, "cotton hoodies", JSON.stringify(s));
    assert.equal(
      s.why,
      `2 visitors who searched “hoodyzz” found pages with “cotton hoodies” next.`,
    );
    assert.deepEqual(s.apply, { word: "hoodyzz", means: ["cotton hoodies"] });
  } finally {
    t.close();
  }
});

Deno.test("suggestions reform - a query with a typo signal and a reformulation gets one suggestion, whose why names the visitors", async () => {
  const { t, site, clock } = await shop();
  try {
    for (let i = 0; i < 3; i++) await search(t, site.publicKey, "q=hooodie");
    for (let v = 0; v < 2; v++) await type(t, site, `r${v}`, ["hooodie", "hoodies"]);
    await settle(t, clock);
    const list = (await suggestions(t, site)).filter((x: { query: string }) =>
      x.query === "hooodie"
    );
    assert.equal(list.length, 1, JSON.stringify(list));
    assert.equal(list[0].to, "hoodies");
    assert.equal(list[0].searches, 5);
    assert.equal(list[0].why, "2 visitors who searched “hooodie” found pages with “hoodies” next.");
  } finally {
    t.close();
  }
});
