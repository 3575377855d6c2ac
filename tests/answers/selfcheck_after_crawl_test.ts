/**
 * The answers' self-check runs after each crawl that ends done, so the owner sees a trend
 * without asking for it: a real crawl of a served site with an FAQ, on the built-in summarizer.
 */
import assert from "node:assert/strict";
import { startCrawlWorker } from "../../lib/crawl/worker.ts";
import { selfCheckAfterCrawl } from "../../lib/answers/selfcheck.ts";
import { admin, createSite, startApp, type TestApp, type TestSite } from "../helpers.ts";
import { html, serveSite } from "../fixtures/crawl_site.ts";

const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));

const FAQ = [
  [
    "How long does delivery take?",
    "Kettles ship within two days and arrive in three to five working days.",
  ],
  [
    "Can I return a kettle?",
    "You can return an unused kettle within thirty days for a full refund.",
  ],
];

async function crawled(t: TestApp, site: TestSite, origin: string) {
  const res = await t.call(
    `/api/admin/sites/${site.id}/crawl`,
    admin(site.adminKey, { url: `${origin}/` }),
  );
  const { job } = await res.json();
  for (let i = 0; i < 500; i++) {
    const now =
      await (await t.call(`/api/admin/sites/${site.id}/crawl/${job.id}`, admin(site.adminKey)))
        .json();
    if (now.status !== "queued" && now.status !== "running") return now;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("crawl did not finish");
}

async function runs(t: TestApp, site: TestSite) {
  const res = await t.call(`/api/admin/sites/${site.id}/answers/selfcheck`, admin(site.adminKey));
  return (await res.json()).runs;
}

Deno.test("self-check after crawl - each crawl that ends done adds a run; a site without questions gets none", async () => {
  const served = serveSite(
    new Map([
      [
        "/",
        html(
          "Zephyr Kettles",
          `<h1>Zephyr Kettles</h1><p>Kettles for tea. See <a href="/faq">the FAQ</a>.</p>`,
        ),
      ],
      ["/faq", html("FAQ", FAQ.map(([q, a]) => `<h2>${q}</h2><p>${a}</p>`).join(""))],
    ]),
  );
  const t = await startApp({ crawl: { allowLoopback: true, delayMs: 0, resolve: noDns } });
  const worker = startCrawlWorker(t.services, {
    afterCrawl: (site) => selfCheckAfterCrawl(t.services, site),
  });
  try {
    const site = await createSite(t, "pro");
    assert.equal((await crawled(t, site, served.origin)).status, "done");
    let kept = await runs(t, site);
    for (let i = 0; i < 100 && !kept.length; i++) {
      await new Promise((r) => setTimeout(r, 20));
      kept = await runs(t, site);
    }
    assert.equal(kept.length, 1, "one run after the crawl");
    assert.equal(kept[0].questions, 2);
    assert.ok(kept[0].citedFirst >= 0.5, JSON.stringify(kept[0]));

    // A site with no questions of its own: nothing to check, no empty run kept.
    served.routes.set("/faq", html("FAQ", "<h2>Delivery</h2><p>Two days.</p>"));
    const plain = await createSite(t, "pro");
    assert.equal((await crawled(t, plain, served.origin)).status, "done");
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await runs(t, plain), []);
  } finally {
    worker.stop();
    await worker.shutdown();
    t.close();
    await served.close();
  }
});
