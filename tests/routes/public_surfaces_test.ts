/**
 * Seams between the public surfaces: a rotated public key in its grace period opens every one
 * of them, and a typing session on the API counts as docs/api.md's "Live search" says.
 */
import assert from "node:assert/strict";
import { QUIET_MS, SETTLE_MS } from "../../lib/analytics/typing.ts";
import {
  admin,
  createSite,
  manualClock,
  putPages,
  startApp,
  type TestApp,
  type TestSite,
} from "../helpers.ts";

const PAGES = [
  {
    url: "/blog/storing-beans",
    title: "Storing coffee beans",
    body: "Store coffee beans in an airtight jar, away from light. Delivery takes 2 days.",
  },
  { url: "/cold-brew", title: "Cold brew", body: "Cold brew steeps for 16 hours in the fridge." },
  {
    url: "/kettles",
    title: "Kettle descaling",
    body: "Descale a kettle monthly with citric acid.",
  },
];

const json = (key: string, body: unknown) => ({
  method: "POST",
  headers: { "Content-Type": "application/json", "X-API-Key": key },
  body: JSON.stringify(body),
});

/** Calls every public surface with `key`; returns each one's status (and the results page's). */
async function surfaces(t: TestApp, key: string) {
  const status: Record<string, number> = {};
  const search = await t.call(`/api/search?q=coffee+beans&key=${key}`);
  status.search = search.status;
  await search.body?.cancel();
  const site = await t.call(`/api/site?key=${key}`);
  status.site = site.status;
  await site.body?.cancel();
  const answer = await t.call("/api/summarize", json(key, { query: "How do I store beans?" }));
  status.summarize = answer.status;
  const conversationId = answer.status === 200 ? (await answer.json()).conversationId : "cv_x";
  if (answer.status !== 200) await answer.body?.cancel();
  const vote = await t.call("/api/feedback", json(key, { conversationId, turn: 1, helpful: true }));
  status.feedback = vote.status;
  await vote.body?.cancel();
  const click = await t.call(
    `/api/events?key=${key}`,
    json(key, { type: "click", query: "coffee beans", position: 1, url: "/blog/storing-beans" }),
  );
  status.events = click.status;
  await click.body?.cancel();
  const page = await t.call(`/search-results?key=${key}&q=coffee+beans`);
  status.resultsPage = page.status;
  const html = await page.text();
  const shown = html.includes("Storing coffee beans") && !html.includes("not valid");
  return { status, shown };
}

Deno.test("public key - a rotated key in its grace period opens every public surface, and none once it lapses", async () => {
  const clock = manualClock();
  const t = await startApp({ clock });
  try {
    const site = await createSite(t, "basic");
    await putPages(t, site, PAGES);
    const rotate = await t.call(
      `/api/admin/sites/${site.id}/keys/rotate`,
      admin(site.adminKey, { key: "public", graceSeconds: 600 }),
    );
    const { publicKey } = await rotate.json();
    assert.equal(rotate.status, 200);
    const open = {
      search: 200,
      site: 200,
      summarize: 200,
      feedback: 204,
      events: 204,
      resultsPage: 200,
    };
    for (const key of [site.publicKey, publicKey]) {
      const got = await surfaces(t, key);
      assert.deepEqual(got.status, open, key === publicKey ? "new key" : "old key in grace");
      assert.ok(got.shown, "the results page shows the results");
    }
    clock.advance(601_000);
    const lapsed = await surfaces(t, site.publicKey);
    assert.deepEqual(lapsed.status, {
      search: 401,
      site: 401,
      summarize: 401,
      feedback: 401,
      events: 401,
      resultsPage: 401,
    });
    assert.ok(!lapsed.shown);
    assert.deepEqual((await surfaces(t, publicKey)).status, open);
  } finally {
    t.close();
  }
});

async function usedThisMonth(t: TestApp, site: TestSite): Promise<number> {
  const res = await t.call(`/api/admin/sites/${site.id}/usage`, admin(site.adminKey));
  return (await res.json()).month.used;
}

async function report(t: TestApp, site: TestSite) {
  const res = await t.call(`/api/admin/sites/${site.id}/analytics?days=1`, admin(site.adminKey));
  assert.equal(res.status, 200);
  const body = await res.json();
  return {
    searches: body.days[0].searches,
    noResults: body.days[0].noResults,
    top: body.topQueries.map((q: { query: string; count: number }) => [q.query, q.count]),
    empty: body.noResultQueries.map((q: { query: string; count: number }) => [q.query, q.count]),
  };
}

Deno.test("live search - a typing session on the API counts one search, and only its last query in analytics", async () => {
  const clock = manualClock();
  const t = await startApp({ clock, analyticsFlushMs: 60_000 });
  try {
    const site = await createSite(t, "free");
    await putPages(t, site, PAGES);
    const typed = [
      "how do i st",
      "how do i store c",
      "how do i store coffee",
      "how do i store coffee beans",
    ];
    for (const q of typed) {
      const res = await t.call(
        `/api/search?key=${site.publicKey}&session=sess_one_1&q=${encodeURIComponent(q)}`,
      );
      assert.equal(res.status, 200);
      await res.body?.cancel();
      clock.advance(400);
    }
    assert.equal(await usedThisMonth(t, site), 1, "the session's refinements ride on one search");
    // While the visitor may still be typing, nothing is a query yet.
    assert.deepEqual(await report(t, site), { searches: 0, noResults: 0, top: [], empty: [] });
    // Quiet: the last query is noted, and counted once no other instance saw a later request.
    clock.advance(QUIET_MS);
    assert.deepEqual(await report(t, site), { searches: 0, noResults: 0, top: [], empty: [] });
    clock.advance(SETTLE_MS - QUIET_MS);
    assert.deepEqual(await report(t, site), {
      searches: 1,
      noResults: 0,
      top: [["how do i store coffee beans", 1]],
      empty: [],
    });
  } finally {
    t.close();
  }
});

Deno.test("live search - a clicked result or Enter finishes a session's query at once; prefixes never count", async () => {
  const clock = manualClock();
  const t = await startApp({ clock, analyticsFlushMs: 60_000 });
  try {
    const site = await createSite(t, "basic");
    await putPages(t, site, PAGES);
    const live = async (session: string, q: string) => {
      const res = await t.call(
        `/api/search?key=${site.publicKey}&session=${session}&q=${encodeURIComponent(q)}`,
      );
      assert.equal(res.status, 200);
      const body = await res.json();
      clock.advance(300);
      return body.results as { url: string; click: string }[];
    };
    // Clicked: the click names the query its results were drawn for.
    for (const q of ["col", "cold br"]) await live("sess_click", q);
    const shown = (await live("sess_click", "cold brew")).find((r) => r.url === "/cold-brew")!;
    const click = await t.call(
      "/api/events",
      json(site.publicKey, {
        type: "click",
        query: "Cold brew",
        position: 1,
        url: "/cold-brew",
        click: shown.click,
      }),
    );
    assert.equal(click.status, 204);
    // Enter: the results page searches the whole question without a session.
    for (const q of ["kettle", "kettle desc"]) await live("sess_enter", q);
    const page = await t.call(`/search-results?key=${site.publicKey}&q=kettle+descaling`);
    assert.equal(page.status, 200);
    await page.body?.cancel();
    // Nothing found: only the last query of the session is an empty query.
    for (const q of ["zzq", "zzqx"]) await live("sess_empty", q);
    // A session that moved on to another question: only its last counts.
    for (const q of ["cof", "kettle"]) await live("sess_moved", q);

    const now = await report(t, site);
    assert.deepEqual(now.top, [["cold brew", 1], ["kettle descaling", 1]]);
    assert.equal(now.searches, 2);
    clock.advance(SETTLE_MS);
    assert.deepEqual(await report(t, site), {
      searches: 4,
      noResults: 1,
      top: [["cold brew", 1], ["kettle", 1], ["kettle descaling", 1], ["zzqx", 1]],
      empty: [["zzqx", 1]],
    });
  } finally {
    t.close();
  }
});

Deno.test("live search - a session whose requests land on two instances counts its last query once", async () => {
  const dir = await Deno.makeTempDir();
  const clock = manualClock();
  const a = await startApp({ clock, kvPath: `${dir}/kv`, analyticsFlushMs: 60_000 });
  const b = await startApp({ clock, kvPath: `${dir}/kv`, analyticsFlushMs: 60_000 });
  try {
    const site = await createSite(a, "basic");
    await putPages(a, site, PAGES);
    const typed: [TestApp, string][] = [
      [a, "how do i st"],
      [a, "how do i store c"],
      [b, "how do i store coffee"], // a new connection landed on another instance
      [b, "how do i store coffee beans"],
      [a, "cold brew"], // another session, on one instance
    ];
    for (const [i, [t, q]] of typed.entries()) {
      const session = i < 4 ? "sess_spread" : "sess_other";
      const res = await t.call(
        `/api/search?key=${site.publicKey}&session=${session}&q=${encodeURIComponent(q)}`,
      );
      assert.equal(res.status, 200);
      await res.body?.cancel();
      clock.advance(400);
    }
    // What each instance's timers do while the sessions are quiet: note, then settle.
    clock.advance(QUIET_MS);
    await Promise.all([a.services.analytics.flush(), b.services.analytics.flush()]);
    clock.advance(SETTLE_MS);
    await a.services.analytics.flush(); // the instance that saw only a prefix settles first
    await b.services.analytics.flush();
    assert.deepEqual((await report(a, site)).top, [
      ["cold brew", 1],
      ["how do i store coffee beans", 1],
    ]);
    const left = [];
    for await (const e of a.kv.list({ prefix: ["antyping"] })) left.push(e.key);
    assert.deepEqual(left, [], "the notes are removed once settled");
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});
