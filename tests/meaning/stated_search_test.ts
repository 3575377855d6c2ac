import assert from "node:assert/strict";
import { compileSynonyms } from "../../lib/levers/synonyms.ts";
import {
  addDoc,
  createSiteDb,
  DEFAULT_RANKING,
  docAt,
  rank,
  type SiteDb,
} from "../../lib/search/engine/mod.ts";
import { removeDoc } from "../../lib/search/engine/store/site_db.ts";
import { statedEquivalences } from "../../lib/search/engine/query/stated.ts";
import { prepareIndex } from "../../lib/search/engine/query/rank.ts";
import {
  admin,
  createSite,
  putPages,
  search,
  startApp,
  type TestApp,
  type TestSite,
} from "../helpers.ts";

const PAGES = [
  {
    url: "/glossary",
    title: "Glossary",
    body: "A Content Delivery Network (CDN) keeps copies of your pages near your visitors.",
  },
  {
    url: "/edge",
    title: "Caching at the edge",
    body: "Our content delivery network holds every asset in forty cities.",
  },
  {
    url: "/setup",
    title: "Setting up",
    body: "Point your CDN at the origin server and purge it after each deploy.",
  },
  { url: "/pricing", title: "Pricing", body: "Plans are billed monthly per site." },
];

function siteDb(pages = PAGES): SiteDb {
  const db = createSiteDb();
  for (const p of pages) {
    addDoc(db, { id: p.url, title: p.title, description: "", headings: "", body: p.body });
  }
  return prepared(db);
}

/** The pass the server runs after each change of an index (indexes.ts), run to its end. */
function prepared(db: SiteDb): SiteDb {
  for (const _ of prepareIndex(db));
  return db;
}

const urls = (db: SiteDb, q: string, expand?: ReturnType<typeof compileSynonyms>) =>
  rank(db, q, { expand }).ids.map((i) => docAt(db, i).id);

Deno.test("stated meaning - a site that defines an abbreviation finds the long form's page for the short query, and the short form's for the long one", () => {
  const db = siteDb();
  // The pages that use the words typed come first; the page that only has the other name follows.
  const short = urls(db, "cdn");
  assert.deepEqual([...short.slice(0, 2)].sort(), ["/glossary", "/setup"]);
  assert.equal(short[2], "/edge");
  const long = urls(db, "content delivery network");
  assert.deepEqual([...long.slice(0, 2)].sort(), ["/edge", "/glossary"]);
  assert.equal(long[2], "/setup");
  assert.equal(long.length, 3);
  assert.deepEqual(statedEquivalences(db).map((e) => [e.words, e.kind, e.seen]), [
    [["cdn", "content delivery network"], "abbreviation", 1],
  ]);
});

Deno.test("stated meaning - without the page that defines it, the abbreviation finds only the pages that use it", () => {
  const db = siteDb(PAGES.filter((p) => p.url !== "/glossary"));
  assert.deepEqual(urls(db, "cdn"), ["/setup"]);
  assert.deepEqual(statedEquivalences(db), []);
});

Deno.test("stated meaning - a page found through a stated name weighs less than through an owner's synonym", () => {
  const db = siteDb();
  const stated = rank(db, "cdn");
  const owners = rank(db, "cdn", {
    expand: compileSynonyms([{ id: "a", word: "cdn", means: ["content delivery network"] }]),
  });
  const edge = db.docs.idOf("/edge")!;
  // Same pages, but "/edge" (found only through the long form) sits lower without the owner.
  assert.deepEqual(new Set(stated.ids), new Set(owners.ids));
  assert.ok(DEFAULT_RANKING.statedWeight < DEFAULT_RANKING.synonymWeight);
  assert.ok(stated.ids.indexOf(edge) >= owners.ids.indexOf(edge));
});

Deno.test("stated meaning - the names follow the index: a definition removed is no longer used", () => {
  const db = siteDb();
  assert.ok(urls(db, "cdn").includes("/edge"));
  removeDoc(db, "/glossary");
  assert.deepEqual(urls(prepared(db), "cdn"), ["/setup"]);
  addDoc(db, {
    id: "/faq",
    title: "FAQ",
    description: "",
    headings: "",
    body: "Is a CDN (content delivery network) included? Yes.",
  });
  assert.ok(urls(prepared(db), "cdn").includes("/edge"));
});

Deno.test("stated meaning - a search before the pass after a change ranks as after it: the names a site states count, whatever searches ran", () => {
  const filler = Array.from({ length: 80 }, (_, i) => ({
    url: `/p/${i}`,
    title: `Page ${i}`,
    body: `Notes number ${i} about plans.`,
  }));
  const db = createSiteDb();
  for (const p of [...filler, ...PAGES]) {
    addDoc(db, { id: p.url, title: p.title, description: "", headings: "", body: p.body });
  }
  // The stated name finds the long form's page at once, and however many searches run...
  const before = urls(db, "cdn");
  assert.ok(before.includes("/edge"));
  for (let i = 0; i < 100; i++) assert.deepEqual(urls(db, "cdn"), before);
  // ...the pass changes nothing a search shows.
  assert.deepEqual(urls(prepared(db), "cdn"), before);
});

async function app(): Promise<{ t: TestApp; site: TestSite }> {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await putPages(t, site, PAGES);
  return { t, site };
}

Deno.test("stated meaning - /api/search finds the page that spells out an abbreviation for the abbreviation", async () => {
  const { t, site } = await app();
  try {
    const r = await search(t, site.publicKey, "q=CDN");
    assert.equal(r.status, 200);
    const found = r.body.results.map((x: { url: string }) => x.url.split("#")[0]);
    assert.deepEqual([...found].sort(), ["/edge", "/glossary", "/setup"]);
    assert.equal(found[2], "/edge");
  } finally {
    t.close();
  }
});

async function suggestions(t: TestApp, site: TestSite) {
  const res = await t.call(`/api/admin/sites/${site.id}/suggestions`, admin(site.adminKey));
  assert.equal(res.status, 200);
  return (await res.json()).suggestions;
}

Deno.test("stated meaning - the owner is offered the stated name as a synonym, and it goes once accepted or dismissed", async () => {
  const { t, site } = await app();
  try {
    await search(t, site.publicKey, "q=cdn");
    await search(t, site.publicKey, "q=cdn");
    const [s, ...rest] = await suggestions(t, site);
    assert.deepEqual(rest, []);
    assert.deepEqual(s, {
      kind: "synonym",
      query: "cdn",
      to: "content delivery network",
      searches: 2,
      why: "Your pages say “content delivery network (CDN)”.",
      apply: { word: "cdn", means: ["content delivery network"] },
    });
    // Accepted: the owner's synonym holds it now.
    let res = await t.call(
      `/api/admin/sites/${site.id}/synonyms`,
      { ...admin(site.adminKey, { synonyms: [s.apply] }), method: "PUT" },
    );
    assert.equal(res.status, 200, await res.text());
    assert.deepEqual(await suggestions(t, site), []);
    // Dismissed (after the owner drops the synonym again): it does not come back.
    res = await t.call(
      `/api/admin/sites/${site.id}/synonyms`,
      { ...admin(site.adminKey, { synonyms: [] }), method: "PUT" },
    );
    await res.body?.cancel();
    assert.equal((await suggestions(t, site)).length, 1);
    res = await t.call(
      `/api/admin/sites/${site.id}/suggestions/dismissed`,
      admin(site.adminKey, { kind: "synonym", query: "cdn", to: "content delivery network" }),
    );
    assert.ok(res.status < 300, await res.text());
    assert.deepEqual(await suggestions(t, site), []);
  } finally {
    t.close();
  }
});
