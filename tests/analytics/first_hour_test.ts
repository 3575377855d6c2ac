/**
 * What a new owner reads after searching their own site: queries counted once however they
 * were typed, clicks and CTR per query, the queries nobody clicked, lists as long as asked,
 * and a gap suggested once several visitors found nothing. Real KV, real HTTP on 127.0.0.1,
 * "visitors" told apart by a trusted proxy's X-Forwarded-For.
 */
import assert from "node:assert/strict";
import { normalizeQuery } from "../../lib/analytics/keys.ts";
import { QUIET_MS, SETTLE_MS } from "../../lib/analytics/typing.ts";
import { parseTrustedProxies } from "../../lib/http/proxies.ts";
import { admin, createSite, manualClock, putPages, startApp } from "../helpers.ts";

const PAGES = [
  {
    url: "/filters",
    title: "Custom filters",
    body: "Custom filters narrow the results by a field of your pages.",
  },
  { url: "/shipping", title: "Shipping", body: "We ship worldwide within five days." },
  { url: "/returns", title: "Returns", body: "Send it back within thirty days." },
];

interface Row {
  query: string;
  count: number;
}
interface TopRow extends Row {
  noResults: number;
  clicks: number;
  ctr: number;
}
interface Report {
  topQueries: TopRow[];
  noResultQueries: Row[];
  noClickQueries: Row[];
  clicks: { count: number };
}

async function siteOverHttp() {
  const clock = manualClock();
  const t = await startApp({
    clock,
    analyticsFlushMs: 60_000,
    trustedProxies: parseTrustedProxies("127.0.0.1"),
  });
  const site = await createSite(t, "pro");
  await putPages(t, site, PAGES);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, t.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  /** A search as `visitor` (acted on, or typed in `session`); its results' URLs and click tokens. */
  const searchAs = async (visitor: string, q: string, session?: string) => {
    const res = await fetch(
      `${base}/api/search?key=${site.publicKey}&q=${encodeURIComponent(q)}` +
        (session ? `&session=${session}` : ""),
      { headers: { "X-Forwarded-For": visitor } },
    );
    assert.equal(res.status, 200);
    const body = await res.json();
    return body.results as { url: string; click: string }[];
  };
  /** A click on a result as the scripts send it: the events API, with the result's token. */
  const clickAs = async (
    visitor: string,
    query: string,
    position: number,
    r: { url: string; click: string },
  ) => {
    const res = await fetch(`${base}/api/events`, {
      method: "POST",
      headers: {
        "X-API-Key": site.publicKey,
        "Content-Type": "application/json",
        "X-Forwarded-For": visitor,
      },
      body: JSON.stringify({ type: "click", query, position, url: r.url, click: r.click }),
    });
    assert.equal(res.status, 204);
    await res.body?.cancel();
  };
  const analytics = async (params = "") => {
    const res = await fetch(`${base}/api/admin/sites/${site.id}/analytics${params}`, {
      headers: { Authorization: `Bearer ${site.adminKey}` },
    });
    return { status: res.status, body: await res.json() };
  };
  const suggestions = async () => {
    const res = await t.call(`/api/admin/sites/${site.id}/suggestions`, admin(site.adminKey));
    assert.equal(res.status, 200);
    return (await res.json()).suggestions as { kind: string; query: string; why: string }[];
  };
  /** Typing sessions gone quiet are counted (typing.ts). */
  const settle = async () => {
    clock.advance(QUIET_MS + 1);
    await t.services.analytics.flush();
    clock.advance(SETTLE_MS + 1);
    await t.services.analytics.flush();
  };
  const close = async () => {
    await server.shutdown();
    t.close();
  };
  return { t, site, searchAs, clickAs, analytics, suggestions, settle, close };
}

Deno.test("first hour - case, accents, spacing and trailing punctuation fold into one query", () => {
  const forms = ["Custom  Filters!", "custom filters", "cústom filters", " CUSTOM filters? "];
  assert.deepEqual(new Set(forms.map(normalizeQuery)), new Set(["custom filters"]));
  // Characters that end names are kept: these are other queries.
  assert.equal(normalizeQuery("C#"), "c#");
  assert.equal(normalizeQuery("c++"), "c++");
  assert.equal(normalizeQuery("node.js"), "node.js");
});

Deno.test("first hour - one row per query however typed, shown as typed most, with its clicks and CTR; the queries nobody clicked listed apart", async () => {
  const s = await siteOverHttp();
  try {
    const typed = ["Custom  Filters!", "custom filters", "custom filters", "cústom filters"];
    let shown: { url: string; click: string }[] = [];
    for (const [i, q] of typed.entries()) shown = await s.searchAs(`198.51.100.${i + 1}`, q);
    assert.equal(shown[0].url, "/filters");
    await s.clickAs("198.51.100.1", "Custom  Filters!", 1, shown[0]);
    for (let i = 0; i < 3; i++) await s.searchAs("198.51.100.9", "Shipping");
    await s.searchAs("198.51.100.9", "returns");
    await s.searchAs("198.51.100.9", "graphql");

    const { status, body } = await s.analytics();
    assert.equal(status, 200);
    const r = body as Report;
    const filters = r.topQueries.filter((q) => /filters/i.test(q.query));
    assert.equal(filters.length, 1, "one row for every way it was typed");
    assert.deepEqual(filters[0], {
      query: "custom filters",
      count: 4,
      noResults: 0,
      clicks: 1,
      ctr: 0.25,
    });
    const shipping = r.topQueries.find((q) => q.query === "Shipping");
    assert.deepEqual(shipping, { query: "Shipping", count: 3, noResults: 0, clicks: 0, ctr: 0 });
    assert.deepEqual(r.noClickQueries, [
      { query: "Shipping", count: 3 },
      { query: "returns", count: 1 },
    ], "found pages, and no one clicked; the query that found nothing is not one of them");
    assert.deepEqual(r.noResultQueries, [{ query: "graphql", count: 1 }]);
    assert.equal(r.clicks.count, 1);
  } finally {
    await s.close();
  }
});

Deno.test("first hour - the most typed form wins whichever came first", async () => {
  const s = await siteOverHttp();
  try {
    await s.searchAs("198.51.100.1", "custom filters");
    for (let i = 0; i < 2; i++) await s.searchAs("198.51.100.2", "Custom Filters");
    const r = (await s.analytics()).body as Report;
    assert.deepEqual(r.topQueries.map((q) => [q.query, q.count]), [["Custom Filters", 3]]);
  } finally {
    await s.close();
  }
});

Deno.test("first hour - limit sizes each list: 20 by default, up to 1,000, anything else a clear 400", async () => {
  const s = await siteOverHttp();
  try {
    for (let i = 0; i < 25; i++) await s.searchAs("198.51.100.1", `nothing here ${i}`);
    for (let i = 0; i < 25; i++) await s.searchAs("198.51.100.1", `shipping ${i}`);
    const plain = (await s.analytics()).body as Report;
    assert.equal(plain.topQueries.length, 20);
    assert.equal(plain.noResultQueries.length, 20);
    assert.equal(plain.noClickQueries.length, 20);
    const more = (await s.analytics("?limit=1000&days=7")).body as Report;
    assert.equal(more.topQueries.length, 50);
    assert.equal(more.noResultQueries.length, 25);
    assert.equal(more.noClickQueries.length, 25);
    const few = (await s.analytics("?limit=3")).body as Report;
    assert.deepEqual(
      [few.topQueries.length, few.noResultQueries.length, few.noClickQueries.length],
      [3, 3, 3],
    );
    for (const bad of ["0", "1001", "-1", "ten", "2.5", ""]) {
      const { status, body } = await s.analytics(`?limit=${bad}`);
      assert.equal(status, 400, `limit=${bad}`);
      assert.equal(body.error.param, "limit", `limit=${bad}: ${JSON.stringify(body)}`);
      assert.match(body.error.message, /limit/);
    }
  } finally {
    await s.close();
  }
});

Deno.test("first hour - a query that finds nothing for 3 visitors is a gap to fill; 3 searches by one visitor are not", async () => {
  const s = await siteOverHttp();
  try {
    for (let i = 0; i < 3; i++) await s.searchAs("203.0.113.7", "graphql");
    for (let i = 0; i < 3; i++) await s.searchAs("203.0.113.7", "Kubernetes!");
    await s.searchAs("198.51.100.1", "kubernetes");
    assert.deepEqual(
      (await s.suggestions()).filter((x) => x.kind === "gap"),
      [],
      "one visitor's searches, however many, and two visitors, are no gap",
    );
    await s.searchAs("198.51.100.1", "GraphQL");
    await s.searchAs("198.51.100.2", "graphql?");
    const gaps = (await s.suggestions()).filter((x) => x.kind === "gap");
    assert.equal(gaps.length, 1);
    const [gap] = gaps as { kind: string; query: string; searches: number; why: string }[];
    assert.equal(gap.query, "graphql");
    assert.equal(gap.searches, 5);
    assert.match(gap.why, /^3 visitors searched “graphql” and found nothing\. Add a page/);
    assert.deepEqual(Object.keys(gap).sort(), ["kind", "query", "searches", "why"]);

    // Dismissed, it does not come back.
    const res = await s.t.call(
      `/api/admin/sites/${s.site.id}/suggestions/dismissed`,
      admin(s.site.adminKey, { kind: "gap", query: "graphql" }),
    );
    assert.ok(res.status < 300, `dismiss: ${res.status}`);
    await res.body?.cancel();
    assert.deepEqual((await s.suggestions()).filter((x) => x.kind === "gap"), []);
  } finally {
    await s.close();
  }
});

Deno.test("first hour - a gap names the word a visitor found pages with instead; one query gets one suggestion", async () => {
  const s = await siteOverHttp();
  try {
    for (let v = 1; v <= 3; v++) await s.searchAs(`198.51.100.${v}`, "delivery");
    // One more visitor typed it, found nothing, and typed on to a word the pages use.
    for (let v = 4; v <= 4; v++) {
      const session = `session-${v}`;
      assert.equal((await s.searchAs(`198.51.100.${v}`, "delivery", session)).length, 0);
      assert.ok((await s.searchAs(`198.51.100.${v}`, "shipping", session)).length > 0);
    }
    await s.settle();
    const gap = (await s.suggestions()).find((x) => x.query === "delivery");
    assert.equal(gap?.kind, "gap");
    assert.equal(
      gap.why,
      "3 visitors searched “delivery” and found nothing. Add a page about it, or make it a " +
        "synonym of “shipping”: 1 visitor found pages with “shipping” next.",
    );
    // A second visitor doing the same makes it a synonym suggestion, which replaces the gap.
    assert.equal((await s.searchAs("198.51.100.5", "delivery", "session-5")).length, 0);
    assert.ok((await s.searchAs("198.51.100.5", "shipping", "session-5")).length > 0);
    await s.settle();
    const now = (await s.suggestions()).filter((x) => x.query === "delivery");
    assert.deepEqual(now.map((x) => x.kind), ["synonym"]);
  } finally {
    await s.close();
  }
});
