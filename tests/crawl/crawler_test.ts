import assert from "node:assert/strict";
import { getCrawlJob, LEASE_LAPSE_MS, startCrawlJob, sweepCrawls } from "../../lib/crawl/jobs.ts";
import { xRobotsTag } from "../../lib/crawl/http.ts";
import {
  admin,
  createSite,
  OPERATOR,
  putPages,
  search,
  startApp,
  type TestApp,
} from "../helpers.ts";
import type { TestSite } from "../helpers.ts";
import {
  gzip,
  html,
  kettleSite,
  MORE_SITEMAP,
  PAGES_SITEMAP,
  serveSite,
  urlset,
} from "../fixtures/crawl_site.ts";

/** Resolves nothing: every test URL is an IP literal or *.localhost, so no DNS packet leaves. */
const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));
const CRAWL = { allowLoopback: true, delayMs: 0, resolve: noDns };

/** The kettle site, plus a second server standing for another host. */
async function kettles() {
  const other = serveSite(new Map([["/elsewhere", html("Partner", "<p>Elsewhere.</p>")]]));
  const site = serveSite();
  for (const [path, route] of await kettleSite(site.origin, other.origin)) {
    site.routes.set(path, route);
  }
  return {
    site,
    other,
    close: async () => {
      await site.close();
      await other.close();
    },
  };
}

/** Starts a crawl through the API and polls until it ends. */
async function crawl(t: TestApp, site: TestSite, body: Record<string, unknown>) {
  const res = await t.call(`/api/admin/sites/${site.id}/crawl`, admin(site.adminKey, body));
  const started = await res.json();
  assert.equal(res.status, 202, JSON.stringify(started));
  assert.match(started.job.id, /^cj_/);
  assert.equal(res.headers.get("location"), `/api/admin/sites/${site.id}/crawl/${started.job.id}`);
  return await waitForJob(t, site, started.job.id);
}

async function waitForJob(t: TestApp, site: TestSite, id: string) {
  for (let i = 0; i < 1000; i++) {
    const res = await t.call(`/api/admin/sites/${site.id}/crawl/${id}`, admin(site.adminKey));
    const job = await res.json();
    assert.equal(res.status, 200);
    if (job.status !== "queued" && job.status !== "running") return job;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("crawl did not finish");
}

async function pageUrls(t: TestApp, site: TestSite): Promise<string[]> {
  const res = await t.call(`/api/admin/sites/${site.id}/pages`, admin(site.adminKey));
  return (await res.json()).pages.map((p: { url: string }) => p.url).sort();
}

/** `[path or URL, reason]` pairs, sorted, with the fixture's origin cut off. */
const reasons = (items: { url: string; reason: string }[], origin: string) =>
  items.map((i) => [i.url.replace(origin, ""), i.reason]).sort((a, b) =>
    a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0
  );

Deno.test("crawl - indexes exactly the right pages from a sitemap index and says why for every other URL", async () => {
  const fx = await kettles();
  const t = await startApp({ crawl: CRAWL });
  const site = await createSite(t, "business");
  const job = await crawl(t, site, { url: `${fx.site.origin}/sitemap_index.xml` });

  assert.equal(job.status, "done");
  assert.equal(job.error, null);
  assert.ok(job.finishedAt);
  assert.deepEqual(await pageUrls(t, site), ["/", "/about", "/docs/guide", "/fr/", "/new"]);
  assert.deepEqual(reasons(job.skipped, fx.site.origin), [
    ["/loop-a", "redirect_limit"],
    ["/manual.pdf", "not_html"],
    ["/noindex-header", "noindex"],
    ["/noindex-meta", "noindex"],
    ["/print/guide", "canonical"],
    ["/private/secret", "robots"],
    [`${fx.other.origin}/elsewhere`, "off_site"],
  ]);
  // A page too large to store is a failure, with the fetch failures.
  assert.deepEqual(reasons(job.failed, fx.site.origin), [
    ["/big", "too_large"],
    ["/broken", "http_500"],
    ["/missing", "http_404"],
  ]);
  assert.deepEqual(job.counts, {
    discovered: PAGES_SITEMAP.length + MORE_SITEMAP.length + 1,
    fetched: 10,
    indexed: 5,
    unchanged: 0,
    removed: 0,
    skipped: 7,
    failed: 3,
  });

  // Robots: asked once, obeyed; the other host and the disallowed folder never saw a request.
  const paths = fx.site.paths();
  assert.equal(paths.filter((p) => p === "/robots.txt").length, 1);
  assert.ok(!paths.includes("/private/secret"));
  assert.equal(fx.other.requests.length, 0);
  assert.ok(fx.site.requests.every((r) => r.userAgent.startsWith("SiteSearchBot/1.0")));
  // The redirect loop stopped after 5 redirects: 6 requests in all.
  assert.equal(paths.filter((p) => p === "/loop-a" || p === "/loop-b").length, 6);

  // Main text only: no navigation, footer, script, hidden or data-nosnippet content.
  const home = await t.services.pages.get(site.id, "/");
  assert.ok(home);
  assert.equal(home.title, "Zephyr Kettles");
  assert.equal(home.description, "About Zephyr Kettles.");
  assert.equal(home.lang, "en");
  assert.match(home.body, /Zephyr makes quiet kettles\./);
  assert.deepEqual(home.headings, ["Welcome"], "section headings are kept for ranking");
  for (const absent of ["SNIPPETFREE", "trackingScript", "hidden words", "Copyright", "Home"]) {
    assert.ok(!home.body.includes(absent), `"${absent}" leaked into the text`);
  }
  assert.equal((await t.services.pages.get(site.id, "/fr/"))?.lang, "fr");
  const found = await search(t, site.publicKey, "q=descale");
  assert.deepEqual(found.body.results.map((r: { url: string }) => r.url), ["/docs/guide"]);

  t.close();
  await fx.close();
});

Deno.test("crawl - a re-crawl updates changed pages, keeps unchanged ones and removes gone ones, but never pages added by hand", async () => {
  const fx = await kettles();
  const t = await startApp({ crawl: CRAWL });
  const site = await createSite(t, "business");
  const url = `${fx.site.origin}/sitemap_index.xml`;
  assert.equal((await crawl(t, site, { url })).counts.indexed, 5);
  await putPages(t, site, [{ url: "/by-hand", title: "Added by hand", body: "Kept." }]);

  // One page changes, one disappears (404, at the end of a redirect chain), one is no longer
  // listed in the sitemap.
  fx.site.routes.set("/about", {
    ...html("About us", "<p>We have boiled water since 1999 in Porto.</p>"),
    headers: { "Content-Type": "text/html", "ETag": '"about-v2"' },
  });
  fx.site.routes.delete("/new");
  fx.site.routes.set("/sitemaps/more.xml.gz", {
    headers: { "Content-Type": "application/gzip" },
    body: await gzip(urlset(fx.site.origin, MORE_SITEMAP.filter((p) => p !== "/fr/"))),
  });
  const before = fx.site.requests.length;
  const job = await crawl(t, site, { url });

  assert.equal(job.status, "done");
  assert.deepEqual(
    [job.counts.indexed, job.counts.unchanged, job.counts.removed],
    [1, 2, 2],
  );
  assert.deepEqual(await pageUrls(t, site), ["/", "/about", "/by-hand", "/docs/guide"]);
  assert.match((await t.services.pages.get(site.id, "/about"))!.body, /Porto/);
  assert.deepEqual(reasons(job.failed, fx.site.origin), [
    ["/big", "too_large"],
    ["/broken", "http_500"],
    ["/missing", "http_404"],
    ["/old", "http_404"],
  ]);
  // Validators went out; unchanged pages came back as 304 without a body.
  const again = fx.site.requests.slice(before);
  const home = again.find((r) => r.path === "/");
  assert.deepEqual([home?.ifNoneMatch, home?.status], ['"home-v1"', 304]);
  const guide = again.find((r) => r.path === "/docs/guide");
  assert.deepEqual([guide?.ifModifiedSince, guide?.status], ["Tue, 03 Nov 2026 10:00:00 GMT", 304]);
  assert.equal(again.find((r) => r.path === "/about")?.status, 200);
  assert.ok(!again.some((r) => r.path === "/fr/"));
  // Search sees the change and the removal.
  assert.equal((await search(t, site.publicKey, "q=porto")).body.results[0]?.url, "/about");
  assert.equal((await search(t, site.publicKey, "q=moved")).body.results.length, 0);

  t.close();
  await fx.close();
});

Deno.test("crawl - from a start page it follows same-site links only, once each", async () => {
  const fx = await kettles();
  const t = await startApp({ crawl: CRAWL });
  const site = await createSite(t, "pro");
  const job = await crawl(t, site, { url: `${fx.site.origin}/` });

  assert.equal(job.status, "done");
  assert.deepEqual(await pageUrls(t, site), ["/", "/about", "/docs/guide", "/fr/", "/new"]);
  assert.deepEqual(
    reasons(job.skipped, fx.site.origin).filter(([, r]) => r === "off_site" || r === "robots"),
    [["/private/secret", "robots"], [`${fx.other.origin}/elsewhere`, "off_site"]],
  );
  assert.equal(fx.other.requests.length, 0);
  // Sitemaps are not read when starting from a page; no page is fetched twice.
  const paths = fx.site.paths();
  assert.ok(!paths.some((p) => p.startsWith("/sitemap")));
  const pages = paths.filter((p) => !/^\/(robots\.txt|loop-[ab])$/.test(p));
  assert.equal(new Set(pages).size, pages.length);

  // Again: the home page answers 304, and its saved links still lead to every other page.
  const before = fx.site.requests.length;
  const again = await crawl(t, site, { url: `${fx.site.origin}/` });
  assert.equal(again.status, "done");
  assert.deepEqual([again.counts.indexed, again.counts.unchanged, again.counts.removed], [0, 5, 0]);
  const home = fx.site.requests.slice(before).filter((r) => r.path === "/");
  // Fetched once as the start URL, whole; every other page with its validators where it has them.
  assert.deepEqual(home.map((r) => r.status), [200]);
  const fr = fx.site.requests.slice(before).find((r) => r.path === "/fr/");
  assert.deepEqual([fr?.ifNoneMatch, fr?.status], ['"fr-v1"', 304]);
  assert.deepEqual(again.reasons, job.reasons);
  t.close();
  await fx.close();
});

Deno.test("crawl - following links, a page no longer linked is removed only when the whole site was seen", async () => {
  const links = (...paths: string[]) => paths.map((p) => `<a href="${p}">${p}</a>`).join(" ");
  const fx = serveSite(
    new Map([
      ["/", html("Home", `<p>${links("/a", "/b", "/guide.pdf")}</p>`)],
      ["/a", html("Page A", "<p>Alpha.</p>")],
      ["/b", html("Page B", "<p>Beta.</p>")],
      ["/guide.pdf", { headers: { "Content-Type": "application/pdf" }, body: "%PDF-1.4" }],
    ]),
  );
  const t = await startApp({ crawl: CRAWL });
  const site = await createSite(t, "pro");
  const url = `${fx.origin}/`;
  assert.equal((await crawl(t, site, { url })).counts.indexed, 3);

  // /b is still served but no longer linked; /a now fails: the site was not seen whole.
  fx.routes.set("/", html("Home", `<p>${links("/a", "/guide.pdf")}</p>`));
  fx.routes.set("/a", { status: 503 });
  const partial = await crawl(t, site, { url });
  assert.equal(partial.counts.removed, 0);
  assert.deepEqual(await pageUrls(t, site), ["/", "/a", "/b"]);

  // Everything answers again (a PDF link hides nothing): now /b is known to be gone.
  fx.routes.set("/a", html("Page A", "<p>Alpha.</p>"));
  const whole = await crawl(t, site, { url });
  assert.equal(whole.counts.removed, 1);
  assert.deepEqual(await pageUrls(t, site), ["/", "/a"]);
  t.close();
  await fx.close();
});

Deno.test("crawl - maxPages stops storing pages with page_limit and loses nothing already indexed", async () => {
  const fx = await kettles();
  const t = await startApp({ crawl: CRAWL });
  const site = await createSite(t, "business");
  const url = `${fx.site.origin}/sitemap_index.xml`;
  await crawl(t, site, { url });
  const job = await crawl(t, site, { url, maxPages: 2 });

  assert.equal(job.status, "done");
  assert.equal(job.maxPages, 2);
  assert.equal(job.counts.unchanged + job.counts.indexed, 2);
  assert.equal(job.counts.removed, 0);
  assert.ok(job.skipped.filter((i: { reason: string }) => i.reason === "page_limit").length >= 3);
  assert.deepEqual(await pageUrls(t, site), ["/", "/about", "/docs/guide", "/fr/", "/new"]);
  t.close();
  await fx.close();
});

Deno.test("crawl - a site at its plan's page limit gets page_limit for new pages and keeps its own", async () => {
  const fx = await kettles();
  const t = await startApp({ crawl: CRAWL });
  const site = await createSite(t, "free"); // 1,000 pages
  for (let b = 0; b < 2; b++) {
    const pages = Array.from({ length: 500 }, (_, i) => ({
      url: `/held/${b * 500 + i}`,
      title: `Held ${i}`,
      body: "Already here.",
    }));
    await putPages(t, site, pages);
  }
  const job = await crawl(t, site, { url: `${fx.site.origin}/sitemap_index.xml` });
  assert.equal(job.status, "done");
  assert.equal(job.counts.indexed, 0);
  assert.deepEqual(
    reasons(job.skipped, fx.site.origin).filter(([, r]) => r === "page_limit").map(([u]) => u),
    ["/", "/about", "/docs/guide", "/fr/", "/old"],
  );
  assert.equal((await t.services.pages.version(site.id)).pages, 1000);
  t.close();
  await fx.close();
});

Deno.test("crawl - robots.txt answering 5xx disallows everything, 4xx allows everything (RFC 9309)", async () => {
  const page = html("Only page", "<p>Hello.</p>");
  const down = serveSite(new Map([["/robots.txt", { status: 503 }], ["/", page]]));
  const gone = serveSite(new Map([["/robots.txt", { status: 404 }], ["/", page]]));
  const t = await startApp({ crawl: CRAWL });
  const a = await createSite(t, "pro");
  const b = await createSite(t, "pro");

  const refused = await crawl(t, a, { url: `${down.origin}/` });
  assert.equal(refused.status, "failed");
  assert.match(refused.error, /robots\.txt could not be fetched/);
  assert.deepEqual(reasons(refused.skipped, down.origin), [["/", "robots"]]);
  assert.deepEqual(down.paths(), ["/robots.txt"]);

  const allowed = await crawl(t, b, { url: `${gone.origin}/` });
  assert.equal(allowed.status, "done");
  assert.equal(allowed.counts.indexed, 1);
  t.close();
  await down.close();
  await gone.close();
});

Deno.test("crawl - a page that stalls before its headers or in its body fails with timeout", async () => {
  const site = serveSite(
    new Map([
      ["/", html("Start", `<a href="/slow-headers">a</a> <a href="/slow-body">b</a>`)],
      ["/slow-headers", { stall: "headers" }],
      ["/slow-body", { stall: "body" }],
    ]),
  );
  const t = await startApp({ crawl: CRAWL });
  const s = await createSite(t, "pro");
  const siteRecord = (await t.services.sites.get(s.id))!;
  const started = await startCrawlJob(t.services, siteRecord, { url: `${site.origin}/` }, {
    tuning: { headersTimeoutMs: 200, bodyTimeoutMs: 200 },
  });
  const job = await started.done;
  assert.equal(job.status, "done");
  const view = await getCrawlJob(t.services, s.id, job.id);
  assert.deepEqual(reasons(view!.failed!, site.origin).filter(([, r]) => r === "timeout"), [
    ["/slow-body", "timeout"],
    ["/slow-headers", "timeout"],
  ]);
  t.close();
  await site.close();
});

Deno.test("crawl - a second crawl of a site while one runs gets 409 CRAWL_IN_PROGRESS", async () => {
  const site = serveSite(new Map([["/", { stall: "headers" }]]));
  const t = await startApp({ crawl: CRAWL });
  const s = await createSite(t, "pro");
  const first = await t.call(
    `/api/admin/sites/${s.id}/crawl`,
    admin(s.adminKey, { url: `${site.origin}/` }),
  );
  assert.equal(first.status, 202);
  const { job } = await first.json();
  const second = await t.call(
    `/api/admin/sites/${s.id}/crawl`,
    admin(OPERATOR, { url: `${site.origin}/` }),
  );
  assert.equal(second.status, 409);
  const body = await second.json();
  assert.equal(body.error.code, "CRAWL_IN_PROGRESS");
  assert.match(body.error.message, new RegExp(job.id));
  const list = await (await t.call(`/api/admin/sites/${s.id}/crawl`, admin(s.adminKey))).json();
  assert.deepEqual(list.jobs.map((j: { id: string }) => j.id), [job.id]);
  await site.close(); // the stalled request ends: the crawl finishes
  const done = await waitForJob(t, s, job.id);
  assert.equal(done.status, "failed");
  t.close();
});

Deno.test("crawl - a job whose lease lapsed is taken over by another instance and finished without fetching stored pages again", async () => {
  const site = serveSite(
    new Map([
      ["/", html("Start", `<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>`)],
      ["/a", html("Page A", "<p>Alpha kettles.</p>")],
      ["/b", html("Page B", "<p>Beta kettles.</p>")],
      ["/c", { stall: "headers" }],
    ]),
  );
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const t1 = await startApp({ kvPath: path, crawl: CRAWL });
  const s = await createSite(t1, "pro");
  const started = await startCrawlJob(t1.services, (await t1.services.sites.get(s.id))!, {
    url: `${site.origin}/`,
  });
  // Wait until the first runner saved the pages it stored as done (it then hangs on /c).
  const want = ["/a", "/b"].map((p) => `${site.origin}${p}`);
  for (let i = 0; i < 600; i++) {
    const done = new Set<string>();
    const prefix = ["crawlurl", s.id, started.job.id];
    for await (const e of t1.kv.list<{ s: number }>({ prefix })) {
      if (e.value.s === 2) done.add(e.key[3] as string);
    }
    const saved = (await getCrawlJob(t1.services, s.id, started.job.id))!.counts.indexed >= 3;
    if (saved && want.every((u) => done.has(u))) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  site.routes.set("/c", html("Page C", "<p>Gamma kettles.</p>"));
  // A second instance on the same KV, its clock past the heartbeat's staleness.
  const t2 = await startApp({
    kvPath: path,
    crawl: CRAWL,
    clock: () => Date.now() + LEASE_LAPSE_MS + 5_000,
  });
  assert.deepEqual(await sweepCrawls(t2.services), [started.job.id], "the lapsed lease is taken");
  const ended = await started.done;
  assert.equal(ended.status, "done", JSON.stringify(ended));
  assert.equal(ended.counts.indexed, 4);
  assert.deepEqual(await pageUrls(t2, s), ["/", "/a", "/b", "/c"]);
  const fetched = (p: string) => site.paths().filter((x) => x === p).length;
  assert.deepEqual(["/", "/a", "/b"].map(fetched), [1, 1, 1], "stored pages are not fetched again");
  assert.equal(fetched("/c"), 2, "the page in flight when the runner went silent is fetched again");
  // Nothing of the job's checkpoint is left once it is done.
  for await (const e of t2.kv.list({ prefix: ["crawlurl", s.id] })) assert.fail(String(e.key));
  await site.close();
  t1.close();
  t2.close();
  await Deno.remove(path);
});

Deno.test("crawl - a stopped crawl ends interrupted at once and frees the site", async () => {
  const site = serveSite(new Map([["/", { stall: "headers" }]]));
  const t = await startApp({ crawl: CRAWL });
  const s = await createSite(t, "pro");
  const record = (await t.services.sites.get(s.id))!;
  const started = await startCrawlJob(t.services, record, { url: `${site.origin}/` });
  await new Promise((r) => setTimeout(r, 50));
  started.stop();
  const job = await started.done;
  assert.equal(job.status, "interrupted");
  assert.equal(job.error, "The crawl was stopped.");
  assert.equal((await getCrawlJob(t.services, s.id, job.id))?.status, "interrupted");
  const next = await startCrawlJob(t.services, record, { url: `${site.origin}/` });
  next.stop();
  await next.done;
  t.close();
  await site.close();
});

Deno.test("crawl - the request is validated: url, scheme, maxPages, unknown fields, site access", async () => {
  const t = await startApp({ crawl: CRAWL });
  const s = await createSite(t, "pro");
  const other = await createSite(t, "pro");
  const post = (body: unknown, key = s.adminKey) =>
    t.call(`/api/admin/sites/${s.id}/crawl`, admin(key, body));
  for (
    const [body, param] of [
      [{}, "url"],
      [{ url: "not a url" }, "url"],
      [{ url: "ftp://127.0.0.1/" }, "url"],
      [{ url: "http://127.0.0.1/" + "a".repeat(2000) }, "url"],
      [{ url: "http://127.0.0.1/", maxPages: 0 }, "maxPages"],
      [{ url: "http://127.0.0.1/", maxPages: 1.5 }, "maxPages"],
      [{ url: "http://127.0.0.1/", depth: 3 }, ""],
    ] as const
  ) {
    const res = await post(body);
    const err = (await res.json()).error;
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(err.code, "INVALID_PARAMETER");
    if (param) assert.equal(err.param, param);
  }
  assert.equal((await post({ url: "http://127.0.0.1/" }, other.adminKey)).status, 404);
  const text = await t.call(`/api/admin/sites/${s.id}/crawl`, {
    method: "POST",
    headers: { Authorization: `Bearer ${s.adminKey}` },
    body: "url=http://127.0.0.1/",
  });
  assert.equal(text.status, 415);
  await text.body?.cancel();
  const del = await t.call(`/api/admin/sites/${s.id}/crawl`, {
    ...admin(s.adminKey),
    method: "DELETE",
  });
  assert.equal(del.status, 405);
  assert.equal(del.headers.get("allow"), "GET, POST, OPTIONS");
  await del.body?.cancel();
  const missing = await t.call(`/api/admin/sites/${s.id}/crawl/cj_nope`, admin(s.adminKey));
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
  t.close();
});

Deno.test("crawl - X-Robots-Tag noindex applies to everyone or to SiteSearchBot by name", () => {
  assert.deepEqual(xRobotsTag("noindex"), { noindex: true, nofollow: false });
  assert.deepEqual(xRobotsTag("none"), { noindex: true, nofollow: true });
  assert.deepEqual(xRobotsTag("googlebot: noindex"), { noindex: false, nofollow: false });
  assert.deepEqual(xRobotsTag("SiteSearchBot: noindex, nofollow"), {
    noindex: true,
    nofollow: true,
  });
  assert.deepEqual(xRobotsTag("unavailable_after: 25 Jun 2010 15:00:00 PST, nofollow"), {
    noindex: false,
    nofollow: true,
  });
  assert.deepEqual(xRobotsTag(null), { noindex: false, nofollow: false });
});
