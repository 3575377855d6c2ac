/**
 * A crawl's discovery of a page's links: each is met once, same-site ones queued and the rest
 * noted, and a page of tens of thousands of links is read in slices, so the event loop (every
 * other site's searches) turns while it is.
 */
import assert from "node:assert/strict";
import { CrawlDiscovery } from "../../lib/crawl/discovery.ts";
import { CrawlTwins } from "../../lib/crawl/duplicates.ts";
import { CrawlQueue } from "../../lib/crawl/queue.ts";
import { CrawlReport, type CrawlSink, emptyCounts } from "../../lib/crawl/report.ts";
import { DEFAULT_TUNING } from "../../lib/crawl/tuning.ts";

Deno.test("crawl discovery - a page's 36,000 links are each met once, in slices the event loop turns between", async () => {
  const noted = new Map<string, number>();
  const sink: CrawlSink = {
    counts: emptyCounts(),
    item: (_kind, _url, reason) => void noted.set(reason, (noted.get(reason) ?? 0) + 1),
  };
  const queue = new CrawlQueue(1);
  const discovery = new CrawlDiscovery({
    fetcher: null as never, // following links fetches nothing
    tuning: DEFAULT_TUNING,
    robots: null as never,
    report: new CrawlReport(sink),
    queue,
    maxPages: 5_000,
    twins: new CrawlTwins(50_000),
  });
  discovery.siteKey = "docs.test|";
  const links = [
    ...Array.from({ length: 18_000 }, (_, i) => `https://docs.test/p/${"x".repeat(100)}${i}.html`),
    ...Array.from({ length: 18_000 }, (_, i) => `https://other${i}.test/page`),
    "https://docs.test/p/again.html#one",
    "https://docs.test/p/again.html#two", // the same page: met once
  ];
  let turns = 0;
  const tick = setInterval(() => turns++, 0);
  await discovery.follow("/", links);
  clearInterval(tick);
  assert.equal(sink.counts.discovered, 36_001);
  assert.equal(queue.pending, 18_001);
  assert.equal(noted.get("off_site"), 18_000);
  assert.ok(turns >= 3, `the event loop turned ${turns} times`);
});
