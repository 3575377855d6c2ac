/**
 * The real-site tier: Debian's documentation packages served on 127.0.0.1 and crawled
 * whole from their home pages, then in other shapes built from them (a sitemap index of
 * gzip sitemaps; directory URLs). Each crawl must end done with at least 99% of the pages
 * a plain link-follower reaches, and a second crawl must find every page unchanged.
 * Without the packages the tier is skipped with a loud message, except under CI=true,
 * where it fails (.ci/run installs them).
 */
import assert from "node:assert/strict";
import { startCrawlJob } from "../../lib/crawl/jobs.ts";
import { createServices, type Services } from "../../lib/services.ts";
import type { Site } from "../../lib/sites/store.ts";
import {
  buildDirectorySite,
  DOC_SITES,
  htmlPaths,
  linkFollower,
  missingPackages,
  type Override,
  serveDir,
  sitemapOverrides,
} from "./docs.ts";

const missing = await missingPackages();
const CI = Deno.env.get("CI") === "true";
if (missing.length && !CI) {
  console.warn(
    `\n!!! REAL-SITE TIER SKIPPED: ${missing.join(", ")} not installed.\n` +
      `!!! apt-get install -y ${missing.join(" ")} (or run .ci/run) to crawl real sites.\n`,
  );
}
const ignore = missing.length > 0 && !CI;

/** Crawls `url` into a fresh KV (delay 0, as a test may); answers the job and the stored paths. */
async function crawlOnce(s: Services, site: Site, url: string) {
  const started = await startCrawlJob(s, site, { url });
  const job = await started.done;
  const paths = new Set<string>();
  for await (const p of s.pages.metas(site.id)) paths.add(p.url);
  return { job, paths };
}

async function withServices<T>(fn: (s: Services, site: Site) => Promise<T>): Promise<T> {
  const kv = await Deno.openKv(":memory:");
  const s = createServices({
    kv,
    log: (l) => void (l.level === "error" && console.error(JSON.stringify(l))),
    crawl: { allowLoopback: true, delayMs: 0 },
  });
  const { site } = await s.sites.create({ name: "Real site", plan: "enterprise" });
  try {
    return await fn(s, site);
  } finally {
    kv.close();
  }
}

/** The pages the follower reached that the crawl did not store (site paths). */
function unstored(reached: Set<string>, stored: Set<string>): string[] {
  return [...reached].map((u) => {
    const x = new URL(u);
    return x.pathname + x.search;
  }).filter((p) => !stored.has(p));
}

/** Asserts the crawl is done with ≥ 99% of what a link-follower reaches, and a re-crawl all unchanged. */
async function crawlWhole(name: string, origin: string, start: string, reached: Set<string>) {
  await withServices(async (s, site) => {
    const t0 = performance.now();
    const first = await crawlOnce(s, site, start);
    const seconds = (performance.now() - t0) / 1000;
    assert.equal(first.job.status, "done", `${name}: ${first.job.error}`);
    const missed = unstored(reached, first.paths);
    const share = 1 - missed.length / reached.size;
    assert.ok(
      share >= 0.99,
      `${name}: ${first.paths.size} stored of ${reached.size} reachable; missed ${
        missed.slice(0, 10).join(", ")
      }`,
    );
    const t1 = performance.now();
    const again = await crawlOnce(s, site, start);
    assert.equal(again.job.status, "done", `${name} again: ${again.job.error}`);
    assert.equal(again.job.counts.indexed, 0, `${name}: ${JSON.stringify(again.job.counts)}`);
    assert.equal(again.job.counts.unchanged, first.job.counts.indexed);
    assert.equal(again.job.counts.removed, 0);
    assert.equal(again.job.progress.done, again.job.progress.total);
    console.log(
      `  ${name}: ${first.job.counts.indexed} pages of ${reached.size} reachable in ` +
        `${seconds.toFixed(1)} s; re-crawl ${((performance.now() - t1) / 1000).toFixed(1)} s`,
    );
    void origin;
  });
}

for (const doc of DOC_SITES) {
  Deno.test({
    name:
      `real sites - ${doc.pkg} crawls done from its home page with ≥ 99% of the reachable pages, and again all unchanged`,
    ignore,
    async fn() {
      const served = serveDir(doc.root);
      try {
        const start = `${served.origin}/index.html`;
        await crawlWhole(doc.pkg, served.origin, start, await linkFollower(start));
      } finally {
        await served.close();
      }
    },
  });
}

Deno.test({
  name:
    "real sites - a sitemap index of gzip sitemaps over python-celery-doc's pages crawls done; a changed page with a backdated lastmod is picked up",
  ignore,
  async fn() {
    const root = DOC_SITES.find((d) => d.pkg === "python-celery-doc")!.root;
    const overrides = new Map<string, Override>();
    const served = serveDir(root, overrides);
    try {
      const paths = await htmlPaths(root);
      for (const [k, v] of await sitemapOverrides(root, served.origin, paths)) overrides.set(k, v);
      const start = `${served.origin}/sitemap_index.xml`;
      // What the sitemaps list and answers with a page: the yardstick here.
      const listed = new Set(paths.map((p) => served.origin + p));
      await crawlWhole("celery (sitemap index)", served.origin, start, listed);

      // One page changes; the sitemap's lastmod for it moves but stays in the past.
      await withServices(async (s, site) => {
        const first = await crawlOnce(s, site, start);
        assert.equal(first.job.status, "done");
        const page = paths.find((p) => p.includes("getting-started")) ?? paths[1];
        const html = await Deno.readTextFile(root + page);
        overrides.set(page, {
          type: "text/html; charset=utf-8",
          body: html.replace("</h1>", "</h1><p>Quokkas now schedule the beat.</p>"),
          modified: new Date("2020-02-01"),
        });
        const lastmods = new Map([[page, "2020-02-01"]]);
        for (const [k, v] of await sitemapOverrides(root, served.origin, paths, lastmods)) {
          overrides.set(k, v);
        }
        const second = await crawlOnce(s, site, start);
        assert.equal(second.job.status, "done");
        assert.equal(second.job.counts.indexed, 1, JSON.stringify(second.job.counts));
        assert.match((await s.pages.get(site.id, page))!.body, /Quokkas now schedule/);
      });
    } finally {
      await served.close();
    }
  },
});

Deno.test({
  name:
    "real sites - a directory-URL site (MkDocs/Hugo shape) built from python-scrapy-doc crawls done with ≥ 99% of the reachable pages",
  ignore,
  async fn() {
    const root = DOC_SITES.find((d) => d.pkg === "python-scrapy-doc")!.root;
    const dir = await buildDirectorySite(root);
    const served = serveDir(dir);
    try {
      const start = `${served.origin}/`;
      const reached = await linkFollower(start);
      assert.ok([...reached].some((u) => u.endsWith("/") && u !== start), "folder URLs");
      await crawlWhole("scrapy (directory URLs)", served.origin, start, reached);
    } finally {
      await served.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
