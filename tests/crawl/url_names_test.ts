import assert from "node:assert/strict";
import { admin, createSite, search, startApp, type TestApp, type TestSite } from "../helpers.ts";
import { html, serveSite } from "../fixtures/crawl_site.ts";

const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));
const CRAWL = { allowLoopback: true, delayMs: 0, resolve: noDns };

/**
 * A shop's help site: /docs/cdn-setup moved to /docs/content-delivery-network (301), and
 * /guide/parcel-tracking declares /guide/shipment-status its canonical URL. Neither page's
 * text says "cdn", "setup", "parcel" or "tracking".
 */
function helpSite() {
  const site = serveSite();
  const canonical = `<link rel="canonical" href="${site.origin}/guide/shipment-status">`;
  const pages: [string, ReturnType<typeof html>][] = [
    [
      "/",
      html(
        "Help",
        `<p>Read <a href="/docs/cdn-setup">images</a> and
      <a href="/guide/parcel-tracking">orders</a>.</p>`,
      ),
    ],
    ["/about", html("About us", "<p>We sell kettles and teapots from our own workshop.</p>")],
    ["/docs/cdn-setup", {
      status: 301,
      headers: { Location: "/docs/content-delivery-network" },
    }],
    [
      "/docs/content-delivery-network",
      html(
        "Content delivery network",
        "<p>A content delivery network keeps copies of your images on edge servers near your visitors.</p>",
      ),
    ],
    [
      "/guide/parcel-tracking",
      html(
        "Shipment status",
        "<p>Follow the shipment status of an order from your account page.</p>",
        { head: canonical },
      ),
    ],
    [
      "/guide/shipment-status",
      html(
        "Shipment status",
        "<p>Follow the shipment status of an order from your account page.</p>",
      ),
    ],
  ];
  for (const [path, route] of pages) site.routes.set(path, route);
  return site;
}

async function crawl(t: TestApp, site: TestSite, url: string) {
  const res = await t.call(`/api/admin/sites/${site.id}/crawl`, admin(site.adminKey, { url }));
  const started = await res.json();
  assert.equal(res.status, 202, JSON.stringify(started));
  for (let i = 0; i < 1000; i++) {
    const r = await t.call(
      `/api/admin/sites/${site.id}/crawl/${started.job.id}`,
      admin(site.adminKey),
    );
    const job = await r.json();
    if (job.status !== "queued" && job.status !== "running") {
      assert.equal(job.status, "done", JSON.stringify(job));
      return job;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("crawl did not finish");
}

const found = async (t: TestApp, site: TestSite, q: string) => {
  const r = await search(t, site.publicKey, `q=${encodeURIComponent(q)}`);
  assert.equal(r.status, 200);
  return r.body.results.map((x: { url: string }) => x.url.split("#")[0]);
};

async function suggestions(t: TestApp, site: TestSite) {
  const res = await t.call(`/api/admin/sites/${site.id}/suggestions`, admin(site.adminKey));
  assert.equal(res.status, 200);
  return (await res.json()).suggestions;
}

type HelpSite = ReturnType<typeof helpSite>;

/** Crawls `fx` (the help site unless given) into a new business site, runs `check`, closes both. */
async function afterCrawl(
  check: (
    t: TestApp,
    site: TestSite,
    fx: HelpSite,
    job: { counts: { indexed: number } },
  ) => Promise<void>,
  fx = helpSite(),
) {
  const t = await startApp({ crawl: CRAWL });
  try {
    const site = await createSite(t, "business");
    await check(t, site, fx, await crawl(t, site, `${fx.origin}/`));
  } finally {
    t.close();
    await fx.close();
  }
}

Deno.test("url names - after a crawl, a page's old URL name (a redirect, a canonical) finds it, and the owner is shown each with the URL that names it", async () => {
  await afterCrawl(async (t, site) => {
    const res = await t.call(`/api/admin/sites/${site.id}/pages`, admin(site.adminKey));
    const stored = (await res.json()).pages.map((p: { url: string }) => p.url).sort();
    assert.deepEqual(stored, [
      "/",
      "/about",
      "/docs/content-delivery-network",
      "/guide/shipment-status",
    ]);

    assert.deepEqual(await found(t, site, "cdn setup"), ["/docs/content-delivery-network"]);
    assert.deepEqual(await found(t, site, "parcel tracking"), ["/guide/shipment-status"]);
    // The page's own words still find it first, through its text.
    assert.equal(
      (await found(t, site, "content delivery network"))[0],
      "/docs/content-delivery-network",
    );

    const offered = (await suggestions(t, site)).map((s: Record<string, unknown>) => ({
      ...s,
      searches: 0,
    }));
    assert.deepEqual(
      offered.sort((a: { query: string }, b: { query: string }) => a.query < b.query ? -1 : 1),
      [
        {
          kind: "synonym",
          query: "cdn setup",
          to: "content delivery network",
          searches: 0,
          why: "Your site's URL “/docs/cdn-setup” redirects to “/docs/content-delivery-network”.",
          apply: { word: "cdn setup", means: ["content delivery network"] },
        },
        {
          kind: "synonym",
          query: "parcel tracking",
          to: "shipment status",
          searches: 0,
          why:
            "Your site's URL “/guide/parcel-tracking” names “/guide/shipment-status” as its canonical URL.",
          apply: { word: "parcel tracking", means: ["shipment status"] },
        },
      ],
    );
  });
});

Deno.test("url names - a name the owner drops no longer finds the page, not even after the next crawl; the other stays", async () => {
  await afterCrawl(async (t, site, fx) => {
    assert.deepEqual(await found(t, site, "cdn setup"), ["/docs/content-delivery-network"]);
    const res = await t.call(
      `/api/admin/sites/${site.id}/suggestions/dismissed`,
      admin(site.adminKey, { kind: "synonym", query: "cdn setup", to: "content delivery network" }),
    );
    assert.ok(res.status < 300, await res.text());
    assert.deepEqual(await found(t, site, "cdn setup"), []);
    assert.deepEqual((await suggestions(t, site)).map((s: { query: string }) => s.query), [
      "parcel tracking",
    ]);

    await crawl(t, site, `${fx.origin}/`);
    assert.deepEqual(await found(t, site, "cdn setup"), []);
    assert.deepEqual(await found(t, site, "parcel tracking"), ["/guide/shipment-status"]);
  });
});

Deno.test("url names - once the old URL no longer redirects, the next crawl stops using its name", async () => {
  await afterCrawl(async (t, site, fx) => {
    assert.deepEqual(await found(t, site, "cdn setup"), ["/docs/content-delivery-network"]);
    // The old URL is a page of its own again (about other things).
    fx.routes.set("/docs/cdn-setup", html("Images", "<p>Where your pictures are kept.</p>"));
    await crawl(t, site, `${fx.origin}/`);
    assert.deepEqual(await found(t, site, "cdn setup"), []);
    assert.deepEqual(await found(t, site, "pictures"), ["/docs/cdn-setup"]);
    assert.deepEqual((await suggestions(t, site)).map((s: { query: string }) => s.query), [
      "parcel tracking",
    ]);
  });
});

Deno.test("url names - a page naming a canonical URL too long for a KV key or value is crawled and no name is kept", async () => {
  const fx = helpSite();
  const long = `/guide/${"x".repeat(70_000)}-status`;
  fx.routes.set(
    "/guide/parcel-tracking",
    html("Shipment status", "<p>Follow it.</p>", {
      head: `<link rel="canonical" href="${fx.origin}${long}">`,
    }),
  );
  fx.routes.set(`/${"y".repeat(3_000)}`, { status: 301, headers: { Location: "/about" } });
  fx.routes.set(
    "/",
    html(
      "Help",
      `<p><a href="/guide/parcel-tracking">orders</a>
    <a href="/${"y".repeat(3_000)}">more</a></p>`,
    ),
  );
  await afterCrawl(async (t, site, _fx, job) => {
    assert.ok(job.counts.indexed >= 2, JSON.stringify(job.counts));
    assert.deepEqual(await suggestions(t, site), []);
    assert.deepEqual(await found(t, site, "parcel tracking"), []);
  }, fx);
});

Deno.test("url names - where the owner's own synonym says what a name means, it wins and the name is no longer offered", async () => {
  await afterCrawl(async (t, site) => {
    const res = await t.call(`/api/admin/sites/${site.id}/synonyms`, {
      ...admin(site.adminKey, { synonyms: [{ word: "cdn setup", means: ["teapots"] }] }),
      method: "PUT",
    });
    assert.equal(res.status, 200, await res.text());
    assert.deepEqual(await found(t, site, "cdn setup"), ["/about"]);
    assert.deepEqual((await suggestions(t, site)).map((s: { query: string }) => s.query), [
      "parcel tracking",
    ]);
  });
});
