/** POST /api/events and GET /api/admin/sites/:id/analytics against the real app. */
import assert from "node:assert/strict";
import { admin, createSite, OPERATOR, putPages, search, startApp } from "../helpers.ts";
import { clearOfMinuteEdge } from "../fixtures/minute_edge.ts";

const PAGES = [
  { url: "/kettles", title: "Kettles", body: "Our kettles boil water quietly and fast." },
  { url: "/descale", title: "Descaling", body: "Descale a kettle monthly with citric acid." },
  { url: "/about", title: "About", body: "A kettle maker from Lisbon since 1999." },
];

const click = (key: string, body: unknown, type = "application/json") => ({
  method: "POST",
  headers: { "Content-Type": type, "X-API-Key": key },
  body: typeof body === "string" ? body : JSON.stringify(body),
});

Deno.test("events - a click beacon is counted; JSON or text/plain, answered 204", async () => {
  const t = await startApp();
  try {
    const site = await createSite(t, "basic");
    await putPages(t, site, PAGES);
    const served = (await search(t, site.publicKey, "q=Kettle")).body.results;
    const token = served.find((r: { url: string }) => r.url === "/kettles").click;
    const ok = { type: "click", query: "Kettle", position: 2, url: "/kettles", click: token };
    const a = await t.call("/api/events", click(site.publicKey, ok));
    assert.equal(a.status, 204);
    assert.equal(await a.text(), "");
    // What navigator.sendBeacon sends: a string body as text/plain, the key in the URL.
    const b = await t.call(`/api/events?key=${site.publicKey}`, {
      method: "POST",
      headers: { "Content-Type": "text/plain;charset=UTF-8" },
      body: JSON.stringify({ ...ok, position: 4 }),
    });
    assert.equal(b.status, 204);
    await b.body?.cancel();
    const r = await t.call(`/api/admin/sites/${site.id}/analytics?days=1`, admin(site.adminKey));
    const body = await r.json();
    assert.equal(r.status, 200);
    assert.equal(body.clicks.count, 2);
    assert.equal(body.clicks.averagePosition, 3);
  } finally {
    t.close();
  }
});

Deno.test("events - bad input gets the error envelope, never a 500", async () => {
  const t = await startApp();
  try {
    const site = await createSite(t, "basic");
    const good = { type: "click", query: "kettle", position: 1, url: "/kettles" };
    const cases: [RequestInit, number, string, string | null][] = [
      [click(site.publicKey, { ...good, position: 0 }), 400, "INVALID_PARAMETER", "position"],
      [click(site.publicKey, { ...good, position: 1.5 }), 400, "INVALID_PARAMETER", "position"],
      [click(site.publicKey, { ...good, position: "1" }), 400, "INVALID_PARAMETER", "position"],
      [click(site.publicKey, { ...good, type: "view" }), 400, "INVALID_PARAMETER", "type"],
      [click(site.publicKey, { ...good, query: "  " }), 400, "INVALID_PARAMETER", "query"],
      [
        click(site.publicKey, { ...good, query: "q".repeat(201) }),
        400,
        "INVALID_PARAMETER",
        "query",
      ],
      [click(site.publicKey, { ...good, extra: 1 }), 400, "INVALID_PARAMETER", null],
      [click(site.publicKey, "{not json"), 400, "INVALID_JSON", null],
      [click(site.publicKey, [1, 2]), 400, "INVALID_PARAMETER", null],
      [click(site.publicKey, good, "application/xml"), 415, "UNSUPPORTED_MEDIA_TYPE", null],
      [
        click(site.publicKey, JSON.stringify({ ...good, query: "x".repeat(5000) })),
        413,
        "PAYLOAD_TOO_LARGE",
        null,
      ],
      [
        { ...click("", good), headers: { "Content-Type": "application/json" } },
        401,
        "MISSING_API_KEY",
        null,
      ],
      [click("pk_" + "x".repeat(24), good), 401, "INVALID_API_KEY", null],
      [click(site.adminKey, good), 401, "INVALID_API_KEY", null],
    ];
    for (const [init, status, code, param] of cases) {
      const res = await t.call("/api/events", init);
      const body = await res.json();
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(body.error.code, code);
      if (param) assert.equal(body.error.param, param);
    }
    const get = await t.call(`/api/events?key=${site.publicKey}`);
    assert.equal(get.status, 405);
    assert.equal((await get.json()).error.code, "METHOD_NOT_ALLOWED");
  } finally {
    t.close();
  }
});

Deno.test("events - a flood from one IP is capped per minute, with Retry-After", async () => {
  const t = await startApp({ eventIpLimitPerMinute: 3 });
  try {
    const site = await createSite(t, "basic");
    const good = { type: "click", query: "kettle", position: 1, url: "/kettles" };
    await clearOfMinuteEdge(); // the limit counts in one minute
    const statuses = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.call("/api/events", click(site.publicKey, good));
      statuses.push(res.status);
      if (res.status === 429) {
        const body = await res.json();
        assert.equal(body.error.code, "EVENT_RATE_LIMIT_EXCEEDED");
        assert.ok(Number(res.headers.get("retry-after")) >= 1);
      } else await res.body?.cancel();
    }
    assert.deepEqual(statuses, [204, 204, 204, 429, 429]);
  } finally {
    t.close();
  }
});

Deno.test("analytics - the endpoint returns the counts of a scripted session", async () => {
  const t = await startApp({ analyticsFlushMs: 60_000 });
  try {
    const site = await createSite(t, "basic");
    const other = await createSite(t, "basic", "Other");
    await putPages(t, site, PAGES);
    const queries = ["Kettle", "kettle ", "KETTLE", "descale", "no such thing", "No  such thing"];
    const shown = new Map<string, string>(); // the kettle results' click tokens, by URL
    for (const q of queries) {
      const r = await search(t, site.publicKey, `q=${encodeURIComponent(q)}`);
      assert.equal(r.status, 200);
      if (q === "Kettle") { for (const x of r.body.results) shown.set(x.url, x.click); }
    }
    assert.equal((await search(t, site.publicKey, "q=kettle&page=2&per_page=1")).status, 200);
    await search(t, other.publicKey, "q=kettle"); // another site's search is not counted here
    const conversations: string[] = [];
    for (const query of ["How do I descale a kettle?", "Where are you from?"]) {
      const res = await t.call("/api/summarize", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-API-Key": site.publicKey },
        body: JSON.stringify({ query }),
      });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      conversations.push(body.conversationId);
    }
    for (const position of [1, 3]) {
      const res = await t.call(
        "/api/events",
        click(site.publicKey, {
          type: "click",
          query: "kettle",
          position,
          url: "/kettles",
          click: shown.get("/kettles"),
        }),
      );
      assert.equal(res.status, 204);
    }
    // Votes go through POST /api/feedback, the module that stores them, not written by hand.
    const votes = [
      { conversationId: conversations[0], turn: 1, helpful: true },
      { conversationId: conversations[1], turn: 1, helpful: false, comment: "Too short" },
    ];
    for (const vote of votes) {
      const res = await t.call("/api/feedback", click(site.publicKey, vote));
      assert.equal(res.status, 204);
      await res.body?.cancel();
    }
    const at = new Date(t.services.clock()).toISOString();

    const res = await t.call(`/api/admin/sites/${site.id}/analytics?days=7`, admin(site.adminKey));
    const body = await res.json();
    assert.equal(res.status, 200);
    assert.equal(body.days.length, 7);
    assert.deepEqual(body.days.at(-1), {
      date: at.slice(0, 10),
      searches: 6,
      answers: 2,
      noResults: 2,
    });
    assert.ok(body.days.slice(0, -1).every((d: { searches: number }) => d.searches === 0));
    assert.deepEqual(body.topQueries, [
      { query: "kettle", count: 3, noResults: 0, clicks: 2, ctr: 0.6667 },
      { query: "no such thing", count: 2, noResults: 2, clicks: 0, ctr: 0 },
      { query: "descale", count: 1, noResults: 0, clicks: 0, ctr: 0 },
    ]);
    assert.deepEqual(body.noResultQueries, [{ query: "no such thing", count: 2 }]);
    assert.deepEqual(body.noClickQueries, [{ query: "descale", count: 1 }]);
    assert.deepEqual(body.clicks, { count: 2, ctr: 0.3333, averagePosition: 2 });
    assert.equal(body.feedback.helpful, 1);
    assert.equal(body.feedback.unhelpful, 1);
    assert.deepEqual(body.feedback.recent.map((r: { comment: string }) => r.comment), [
      "Too short",
    ]);

    const def = await t.call(`/api/admin/sites/${site.id}/analytics`, admin(OPERATOR));
    assert.equal((await def.json()).days.length, 30);
    const empty = await t.call(
      `/api/admin/sites/${other.id}/analytics?days=1`,
      admin(other.adminKey),
    );
    assert.deepEqual((await empty.json()).topQueries, [{
      query: "kettle",
      count: 1,
      noResults: 1,
      clicks: 0,
      ctr: 0,
    }]);
  } finally {
    t.close();
  }
});

Deno.test("analytics - days is checked, and only the site's owner or the operator reads it", async () => {
  const t = await startApp();
  try {
    const site = await createSite(t, "free");
    const other = await createSite(t, "free", "Other");
    for (const days of ["0", "91", "x", "1.5", "-3"]) {
      const res = await t.call(
        `/api/admin/sites/${site.id}/analytics?days=${days}`,
        admin(site.adminKey),
      );
      const body = await res.json();
      assert.equal(res.status, 400, days);
      assert.equal(body.error.param, "days");
    }
    const max = await t.call(`/api/admin/sites/${site.id}/analytics?days=90`, admin(site.adminKey));
    assert.equal((await max.json()).days.length, 90);
    const cases: [string, number][] = [[site.publicKey, 401], [other.adminKey, 404], ["nope", 401]];
    for (const [token, status] of cases) {
      const res = await t.call(`/api/admin/sites/${site.id}/analytics`, admin(token));
      assert.equal(res.status, status);
      await res.body?.cancel();
    }
    const post = await t.call(`/api/admin/sites/${site.id}/analytics`, admin(OPERATOR, {}));
    assert.equal(post.status, 405);
    await post.body?.cancel();
  } finally {
    t.close();
  }
});

Deno.test("events - clicks count only for a result the service served for that query: forged ones plant nothing", async () => {
  const t = await startApp();
  try {
    const [site, other] = [await createSite(t, "pro"), await createSite(t, "pro")];
    await putPages(t, site, PAGES);
    await putPages(t, other, [...PAGES, { url: "/forum/spam", title: "Spam", body: "Buy now." }]);
    for (let i = 0; i < 6; i++) await search(t, site.publicKey, "q=refund");
    const kettles = (await search(t, site.publicKey, "q=kettle")).body.results;
    const spamShown = (await search(t, other.publicKey, "q=buy")).body.results
      .find((r: { url: string }) => r.url === "/forum/spam").click;
    const forged = [
      { url: "/forum/spam" }, // no token at all
      { url: "/forum/spam", click: "A".repeat(22) }, // a made-up one
      { url: "/forum/spam", click: spamShown }, // another site's, for another query
      { url: "/kettles", click: kettles[0].click }, // a real token, for another query
    ];
    for (const f of forged) {
      for (let i = 0; i < 6; i++) {
        const res = await t.call(
          "/api/events",
          click(site.publicKey, { type: "click", query: "refund", position: 1, ...f }),
        );
        assert.equal(res.status, 204, "accepted, as a beacon expects");
        await res.body?.cancel();
      }
    }
    await t.services.analytics.flush();
    const r = await t.call(`/api/admin/sites/${site.id}/analytics?days=1`, admin(site.adminKey));
    const body = await r.json();
    assert.equal(body.clicks.count, 0, "no forged click counted");
    const sug = await t.call(`/api/admin/sites/${site.id}/suggestions`, admin(site.adminKey));
    const suggestions = (await sug.json()).suggestions as { kind: string; url?: string }[];
    assert.deepEqual(suggestions.filter((x) => x.kind === "pin"), [], "no planted pin");
  } finally {
    t.close();
  }
});
