/**
 * The index follows the site: a served site whose files change between steps, crawled by the
 * real app; named URLs re-fetched out of any crawl, and every URL's reason for being (or not
 * being) searchable.
 */
import assert from "node:assert/strict";
import { admin, createSite, startApp, type TestApp, type TestSite } from "../helpers.ts";
import { crawlToEnd, jobEnd, searchUntil } from "../fixtures/waits.ts";
import { BIG_PAGE_BYTES, html, type Route, serveSite } from "../fixtures/crawl_site.ts";

const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));
const CRAWL = { allowLoopback: true, delayMs: 0, resolve: noDns };

const NOINDEX = '<meta name="robots" content="noindex">';

/** A small site with one URL for every reason a page is not searchable. */
function blogSite(otherOrigin: string): Map<string, Route> {
  const links = ["/alpha", "/beta", "/gone", "/secret", "/quiet", "/copy", "/moved", "/data.bin"]
    .map((p) => `<a href="${p}">${p}</a>`).join(" ");
  return new Map<string, Route>([
    ["/robots.txt", {
      headers: { "Content-Type": "text/plain" },
      body: "User-agent: *\nDisallow: /secret\n",
    }],
    ["/", html("Home", `<p>Welcome. ${links} <a href="${otherOrigin}/x">partner</a></p>`)],
    ["/alpha", html("Alpha", "<p>The alpha kettle boils water quickly.</p>")],
    ["/beta", html("Beta", "<p>The beta grinder mills coffee beans.</p>")],
    ["/secret", html("Secret", "<p>Hidden plans.</p>")],
    [
      "/quiet",
      html("Quiet", "<p>Draft notes.</p>", { head: '<meta name="robots" content="noindex">' }),
    ],
    [
      "/copy",
      html("Copy", "<p>A copy of alpha.</p>", { head: '<link rel="canonical" href="/alpha">' }),
    ],
    ["/moved", { status: 301, headers: { Location: "/beta" } }],
    ["/data.bin", {
      headers: { "Content-Type": "application/octet-stream" },
      body: "\u0000\u0001bin",
    }],
    ["/orphan", html("Orphan", "<p>Nobody links to this page.</p>")],
    ["/secret-unlinked", html("Secret", "<p>Unlinked and disallowed.</p>")],
    ["/draft-unlinked", html("Draft", "<p>Unlinked draft.</p>", { head: NOINDEX })],
  ]);
}

const status = async (t: TestApp, site: TestSite, url: string) => {
  const res = await t.call(
    `/api/admin/sites/${site.id}/urls/status?url=${encodeURIComponent(url)}`,
    admin(site.adminKey),
  );
  return { code: res.status, body: await res.json() };
};

const refetch = (t: TestApp, site: TestSite, urls: unknown) =>
  t.call(`/api/admin/sites/${site.id}/recrawl`, admin(site.adminKey, { urls }));

Deno.test("freshness - urls/status gives every URL's reason, and a re-fetch makes changes searchable within 10 s", async () => {
  const other = serveSite(new Map([["/x", html("Partner", "<p>Elsewhere.</p>")]]));
  const fx = serveSite();
  for (const [p, r] of blogSite(other.origin)) fx.routes.set(p, r);
  const t = await startApp({ crawl: CRAWL });
  try {
    const site = await createSite(t, "business");
    const job = await crawlToEnd(t, site, { url: fx.origin + "/" });
    assert.equal(job.status, "done", JSON.stringify(job));

    const expect: [string, string, boolean][] = [
      ["/alpha", "indexed", true],
      [fx.origin + "/beta", "indexed", true],
      ["/secret", "robots", false],
      ["/quiet", "noindex", false],
      ["/copy", "canonical", false],
      ["/gone", "http_404", false],
      ["/moved", "redirect", false],
      ["/data.bin", "not_html", false],
      ["/orphan", "not_linked", false],
      // Never linked, looked at now: each URL's own reason.
      ["/secret-unlinked", "robots", false],
      ["/draft-unlinked", "noindex", false],
      ["/never-published", "http_404", false],
      [other.origin + "/x", "off_site", false],
    ];
    for (const [url, reason, searchable] of expect) {
      const { code, body } = await status(t, site, url);
      assert.equal(code, 200, url);
      assert.equal(body.reason, reason, `${url}: ${JSON.stringify(body)}`);
      assert.equal(body.searchable, searchable, url);
      assert.ok(body.detail.length > 20, `${url} has a sentence`);
    }
    const copy = (await status(t, site, "/copy")).body;
    assert.equal(copy.canonical, fx.origin + "/alpha");
    assert.equal((await status(t, site, "/moved")).body.canonical, fx.origin + "/beta");
    // Fetched URLs say when; a robots-disallowed one was never fetched.
    assert.ok(Date.parse((await status(t, site, "/gone")).body.lastFetched) > 0);
    assert.ok(Date.parse((await status(t, site, "/alpha")).body.lastFetched) > 0);
    assert.equal((await status(t, site, "/secret")).body.lastFetched, null);

    // The owner edits a page and re-fetches it: searchable within 10 s, no full crawl.
    fx.routes.set("/alpha", html("Alpha", "<p>The alpha kettle now brews jasmine tea.</p>"));
    const before = fx.requests.length;
    const res = await refetch(t, site, ["/alpha"]);
    assert.equal(res.status, 202);
    assert.deepEqual(await res.json(), { queued: 1 });
    const asked = Date.now();
    await searchUntil(t, site, "jasmine", (urls) => urls.includes("/alpha"));
    assert.ok(Date.now() - asked < 10_000);
    await searchUntil(t, site, "boils", (urls) => !urls.includes("/alpha"));
    const fetched = fx.requests.slice(before).map((r) => r.path);
    assert.deepEqual(fetched.filter((p) => p !== "/robots.txt"), ["/alpha"]);

    // A page gone (404) and a page now noindex leave the index on a re-fetch.
    fx.routes.delete("/beta");
    fx.routes.set(
      "/alpha",
      html("Alpha", "<p>Jasmine.</p>", { head: '<meta name="robots" content="noindex">' }),
    );
    assert.equal((await refetch(t, site, [fx.origin + "/beta", "/alpha"])).status, 202);
    await searchUntil(t, site, "grinder", (urls) => !urls.includes("/beta"));
    await searchUntil(t, site, "jasmine", (urls) => !urls.includes("/alpha"));
    assert.equal((await status(t, site, "/beta")).body.reason, "http_404");
    assert.equal((await status(t, site, "/alpha")).body.reason, "noindex");

    // The unlinked page, re-fetched by name, is searchable (and says so).
    assert.equal((await refetch(t, site, ["/orphan"])).status, 202);
    await searchUntil(t, site, "nobody", (urls) => urls.includes("/orphan"));
    assert.equal((await status(t, site, "/orphan")).body.reason, "indexed");
  } finally {
    t.close();
    await fx.close();
    await other.close();
  }
});

Deno.test("freshness - re-fetch refuses what is not the site's, and bounds what waits", async () => {
  const fx = serveSite();
  for (const [p, r] of blogSite("http://127.0.0.2:9")) fx.routes.set(p, r);
  const t = await startApp({ crawl: CRAWL });
  try {
    const site = await createSite(t, "business");
    // Never crawled: nothing to re-fetch from yet.
    const early = await refetch(t, site, ["/alpha"]);
    assert.equal(early.status, 400);
    assert.match((await early.json()).error.message, /not been crawled/);
    await crawlToEnd(t, site, { url: fx.origin + "/" });

    const cases: [unknown, string][] = [
      [[], "urls"],
      [["http://127.0.0.2:9/x"], "urls[0]"],
      [["/alpha", "ftp://x/y"], "urls[1]"],
      [["/alpha", ""], "urls[1]"],
      [Array.from({ length: 1001 }, (_, i) => `/p${i}`), "urls"],
      ["/alpha", "urls"],
    ];
    for (const [urls, param] of cases) {
      const res = await refetch(t, site, urls);
      const body = await res.json();
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(body.error.param, param);
    }
    const status = await t.call(`/api/admin/sites/${site.id}/urls/status`, admin(site.adminKey));
    assert.equal(status.status, 400);

    // A page that never answers holds its re-fetch: past ten waiting, the site is told to wait.
    fx.routes.set("/slow", { stall: "headers" });
    for (let i = 0; i < 10; i++) assert.equal((await refetch(t, site, ["/slow"])).status, 202);
    const refused = await refetch(t, site, ["/alpha"]);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get("retry-after")) > 0);
    assert.equal((await refused.json()).error.code, "REFETCH_RATE_LIMIT_EXCEEDED");
    // Another site is not held up by this one's queue: its crawl and re-fetch end long before
    // the hung page's fetches time out (10 s) and free their slots.
    const held = Date.now();
    const site2 = await createSite(t, "business");
    const fx2 = serveSite();
    for (const [p, r] of blogSite("http://127.0.0.2:9")) fx2.routes.set(p, r);
    await crawlToEnd(t, site2, { url: fx2.origin + "/" });
    fx2.routes.set("/alpha", html("Alpha", "<p>Hibiscus infusion.</p>"));
    assert.equal((await refetch(t, site2, ["/alpha"])).status, 202);
    await searchUntil(t, site2, "hibiscus", (urls) => urls.includes("/alpha"));
    const waited = Date.now() - held;
    assert.ok(waited < 6000, `the other site's crawl and re-fetch took ${waited} ms`);
    await fx2.close();
  } finally {
    t.close();
    await fx.close();
  }
});

Deno.test("freshness - urls/status: excluded, not included, too large, and not crawled past the page limit", async () => {
  const fx = serveSite();
  const links = ["/docs/a", "/blog/b", "/private/x", "/huge"].map((p) => `<a href="${p}">${p}</a>`)
    .join(" ");
  fx.routes.set("/", html("Home", `<p>Welcome. ${links}</p>`));
  fx.routes.set("/docs/a", html("Doc A", "<p>Docs.</p>"));
  fx.routes.set("/blog/b", html("Blog B", "<p>Blog.</p>"));
  fx.routes.set("/private/x", html("Private", "<p>Private.</p>"));
  fx.routes.set("/huge", {
    headers: { "Content-Type": "text/html" },
    body: "<html><body><p>" + "huge ".repeat(BIG_PAGE_BYTES / 5) + "</p></body></html>",
  });
  const t = await startApp({ crawl: CRAWL });
  try {
    const site = await createSite(t, "business");
    const res = await t.call(
      `/api/admin/sites/${site.id}/crawl`,
      admin(site.adminKey, {
        url: fx.origin + "/",
        include: ["/", "/docs/**", "/private/**", "/huge"],
        exclude: ["/private/**"],
      }),
    );
    assert.equal(res.status, 202);
    await jobEnd(t, site, (await res.json()).job.id);
    for (
      const [url, reason] of [
        ["/docs/a", "indexed"],
        ["/blog/b", "not_included"],
        ["/private/x", "excluded"],
        ["/huge", "too_large"],
      ]
    ) {
      const { body } = await status(t, site, url);
      assert.equal(body.reason, reason, `${url}: ${JSON.stringify(body)}`);
    }

    const small = await createSite(t, "business");
    const capped = await t.call(
      `/api/admin/sites/${small.id}/crawl`,
      admin(small.adminKey, { url: fx.origin + "/", maxPages: 1 }),
    );
    await jobEnd(t, small, (await capped.json()).job.id);
    const { body } = await status(t, small, "/docs/a");
    assert.equal(body.reason, "not_crawled", JSON.stringify(body));
    assert.match(body.detail, /page limit/);
    assert.equal(body.lastFetched, null);
  } finally {
    t.close();
    await fx.close();
  }
});
