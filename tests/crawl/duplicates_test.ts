import assert from "node:assert/strict";
import { admin, createSite, startApp, type TestApp, type TestSite } from "../helpers.ts";
import { type Route, serveSite, urlset } from "../fixtures/crawl_site.ts";

const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));
const CRAWL = { allowLoopback: true, delayMs: 0, resolve: noDns };

/** A page whose only links are `links`, so the test knows how often each URL is linked. */
const page = (title: string, text: string, links: string[] = [], head = ""): Route => ({
  headers: { "Content-Type": "text/html; charset=utf-8" },
  body: `<!doctype html><html lang="en"><head><title>${title}</title>${head}</head><body><main>` +
    `<h1>${title}</h1><p>${text}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(" ")}` +
    `</main></body></html>`,
});

async function crawl(t: TestApp, site: TestSite, url: string) {
  const res = await t.call(`/api/admin/sites/${site.id}/crawl`, admin(site.adminKey, { url }));
  const { job } = await res.json();
  assert.equal(res.status, 202);
  for (let i = 0; i < 1000; i++) {
    const r = await t.call(`/api/admin/sites/${site.id}/crawl/${job.id}`, admin(site.adminKey));
    const now = await r.json();
    if (now.status !== "queued" && now.status !== "running") return now;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("crawl did not finish");
}

async function pageUrls(t: TestApp, site: TestSite): Promise<string[]> {
  const res = await t.call(`/api/admin/sites/${site.id}/pages`, admin(site.adminKey));
  return (await res.json()).pages.map((p: { url: string }) => p.url).sort();
}

/** `[duplicate, kept]` path pairs of a job's report, sorted. */
function duplicates(job: { skipped: { url: string; reason: string; duplicateOf?: string }[] }) {
  return job.skipped.filter((i) => i.reason === "duplicate")
    .map((i) => [new URL(i.url).pathname, new URL(i.duplicateOf!).pathname]).sort();
}

/**
 * `/` and `/index.html`, `/docs/` and `/docs/index.html`, and `/a` and `/b` serve the same
 * pages. The site links `/` more than `/index.html`, `/docs/index.html` more than `/docs/`,
 * and `/a` more than `/b`.
 */
function twinSite() {
  const home = page("Home", "Welcome to the kettle docs.", [
    "/index.html",
    "/docs/",
    "/a",
    "/b",
    "/c",
  ]);
  const docs = page("Docs", "How to descale a kettle.", ["/a", "/"]);
  const twin = page("Twin", "The same words under two names.", ["/", "/docs/index.html"]);
  return serveSite(
    new Map<string, Route>([
      ["/", home],
      ["/index.html", home],
      ["/docs/", docs],
      ["/docs/index.html", docs],
      ["/a", twin],
      ["/b", twin],
      ["/c", page("Cups", "Cups and mugs.", ["/docs/index.html", "/a", "/"])],
    ]),
  );
}

Deno.test("crawl duplicates - each page is stored once, under the URL the site links most, and the others are reported as its duplicates", async () => {
  const fx = twinSite();
  const t = await startApp({ crawl: CRAWL });
  const site = await createSite(t, "pro");
  const job = await crawl(t, site, `${fx.origin}/`);

  assert.equal(job.status, "done");
  assert.deepEqual(await pageUrls(t, site), ["/", "/a", "/c", "/docs/index.html"]);
  assert.deepEqual(duplicates(job), [["/b", "/a"], ["/docs/", "/docs/index.html"], [
    "/index.html",
    "/",
  ]]);
  assert.equal(job.reasons.duplicate, 3);
  assert.deepEqual([job.counts.indexed, job.counts.skipped], [4, 3]);
  // One result for the home page, not two.
  const res = await t.call(`/api/search?key=${site.publicKey}&q=welcome`);
  assert.deepEqual((await res.json()).results.map((r: { url: string }) => r.url), ["/"]);

  // Again: the same pages under the same URLs, and the same report.
  const again = await crawl(t, site, `${fx.origin}/`);
  assert.equal(again.status, "done");
  assert.deepEqual(await pageUrls(t, site), ["/", "/a", "/c", "/docs/index.html"]);
  assert.deepEqual(duplicates(again), duplicates(job));
  assert.equal(again.counts.removed, 0);
  t.close();
  await fx.close();
});

Deno.test("crawl duplicates - a page's canonical decides over links, and a re-crawl moves a page the site now links elsewhere", async () => {
  const guide = page("Guide", "Boil water.", [], '<link rel="canonical" href="/guide/index.html">');
  const self = page("Self", "Named by itself.", [], '<link rel="canonical" href="/x">');
  const plain = page("Self", "Named by itself.");
  const fx = serveSite(
    new Map<string, Route>([
      ["/", page("Home", "Start here.", ["/guide/", "/y", "/p", "/q"])],
      ["/guide/", guide],
      ["/guide/index.html", guide],
      ["/x", self],
      ["/y", plain],
      ["/p", page("Pots", "Pots and pans.", ["/y", "/x", "/guide/"])],
      ["/q", page("Tea", "Leaves.", ["/y"])],
    ]),
  );
  const t = await startApp({ crawl: CRAWL });
  const site = await createSite(t, "pro");
  const job = await crawl(t, site, `${fx.origin}/`);
  assert.equal(job.status, "done");
  assert.deepEqual(await pageUrls(t, site), ["/", "/guide/index.html", "/p", "/q", "/x"]);
  assert.deepEqual(
    job.skipped.filter((i: { reason: string }) => i.reason === "canonical")
      .map((i: { url: string }) => new URL(i.url).pathname),
    ["/guide/"],
  );
  assert.deepEqual(duplicates(job), [["/y", "/x"]]);

  // /x drops its canonical: /y, linked three times, now keeps the page; /x goes.
  fx.routes.set("/x", plain);
  const again = await crawl(t, site, `${fx.origin}/`);
  assert.equal(again.status, "done");
  assert.deepEqual(await pageUrls(t, site), ["/", "/guide/index.html", "/p", "/q", "/y"]);
  assert.deepEqual(duplicates(again), [["/x", "/y"]]);
  t.close();
  await fx.close();
});

Deno.test("crawl duplicates - from a sitemap, twins with no links between them keep the directory form", async () => {
  const fx = twinSite();
  fx.routes.set("/sitemap.xml", {
    headers: { "Content-Type": "application/xml" },
    body: urlset(fx.origin, ["/docs/index.html", "/index.html", "/docs/", "/"]),
  });
  const t = await startApp({ crawl: CRAWL });
  const site = await createSite(t, "pro");
  const job = await crawl(t, site, `${fx.origin}/sitemap.xml`);
  assert.equal(job.status, "done");
  assert.deepEqual(await pageUrls(t, site), ["/", "/docs/"]);
  assert.deepEqual(duplicates(job), [["/docs/index.html", "/docs/"], ["/index.html", "/"]]);
  t.close();
  await fx.close();
});

Deno.test("crawl origin - a site crawled over http links its results to http://host:port on the hosted results page", async () => {
  const fx = twinSite();
  const t = await startApp({ crawl: CRAWL });
  const site = await createSite(t, "pro");
  assert.equal((await crawl(t, site, `${fx.origin}/`)).status, "done");
  const got = await (await t.call(`/api/admin/sites/${site.id}`, admin(site.adminKey))).json();
  assert.equal(got.site.crawlOrigin, fx.origin);
  const res = await t.call(`/search-results?key=${site.publicKey}&q=descale`);
  const page = await res.text();
  assert.equal(res.status, 200);
  assert.ok(page.includes(`"baseUrl":"${fx.origin}"`), "the results link to the crawled origin");
  assert.ok(!page.includes(`https://127.0.0.1:${fx.port}`));
  t.close();
  await fx.close();
});

Deno.test("crawl duplicates - a re-crawl that meets the twin first leaves the page where it is; a twin that changes or goes away loses nothing", async () => {
  // The crawl starts at /start.html, which the site links less than its twin /manual.html.
  const manual = page("Manual", "Every command of the kettle.", ["/tips.html"]);
  const fx = serveSite(
    new Map<string, Route>([
      ["/start.html", manual],
      ["/manual.html", manual],
      ["/tips.html", page("Tips", "Descale monthly.", ["/manual.html", "/start.html"])],
      ["/more.html", page("More", "Cups.", ["/manual.html"])],
    ]),
  );
  fx.routes.set("/tips.html", page("Tips", "Descale monthly.", ["/manual.html", "/more.html"]));
  const t = await startApp({ crawl: CRAWL });
  const site = await createSite(t, "pro");
  try {
    const first = await crawl(t, site, `${fx.origin}/start.html`);
    assert.equal(first.status, "done");
    assert.deepEqual(await pageUrls(t, site), ["/manual.html", "/more.html", "/tips.html"]);

    const again = await crawl(t, site, `${fx.origin}/start.html`);
    assert.equal(again.counts.indexed, 0, JSON.stringify(again.counts));
    assert.equal(again.counts.unchanged, first.counts.indexed);
    assert.deepEqual(await pageUrls(t, site), ["/manual.html", "/more.html", "/tips.html"]);
    assert.deepEqual(duplicates(again), [["/start.html", "/manual.html"]]);

    // The two URLs part: each keeps its own page.
    fx.routes.set(
      "/manual.html",
      page("Manual", "Every command, and the new timer.", ["/tips.html"]),
    );
    await crawl(t, site, `${fx.origin}/start.html`);
    assert.deepEqual(await pageUrls(t, site), [
      "/manual.html",
      "/more.html",
      "/start.html",
      "/tips.html",
    ]);

    // The URL kept goes away while its twin stays: the page moves to the twin.
    fx.routes.set("/manual.html", manual);
    await crawl(t, site, `${fx.origin}/start.html`);
    fx.routes.delete("/manual.html");
    fx.routes.set("/tips.html", page("Tips", "Descale monthly.", ["/more.html"]));
    fx.routes.set("/more.html", page("More", "Cups.", []));
    await crawl(t, site, `${fx.origin}/start.html`);
    const urls = await pageUrls(t, site);
    assert.ok(urls.includes("/start.html") && !urls.includes("/manual.html"), urls.join(" "));
  } finally {
    t.close();
    await fx.close();
  }
});
