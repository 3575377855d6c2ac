/**
 * A crawl whose pages push every KV write to its limits: 20,000 links on a page, 50,000
 * skipped URLs, URLs of 8 KB, 100 paths near the longest a page may have, a page of
 * 5 MB, headings that make V8 store two bytes a character, an ETag of 30 KB. The crawl
 * ends done, and every value and key it left is within Deno KV's limits.
 */
import assert from "node:assert/strict";
import { admin, createSite, startApp, type TestApp, type TestSite } from "../helpers.ts";
import { html, type Route, serveSite } from "../fixtures/crawl_site.ts";
import { keyBytes, KV_LIMITS } from "../../lib/storage/kv_limits.ts";
import { storageUnavailable } from "../../lib/errors.ts";
import { startCrawlJob } from "../../lib/crawl/jobs.ts";

const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));
const CRAWL = { allowLoopback: true, delayMs: 0, resolve: noDns };

async function waitForJob(t: TestApp, site: TestSite, id: string) {
  for (let i = 0; i < 3000; i++) {
    const res = await t.call(`/api/admin/sites/${site.id}/crawl/${id}`, admin(site.adminKey));
    const job = await res.json();
    if (job.status !== "queued" && job.status !== "running") return job;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("crawl did not finish");
}

async function crawl(t: TestApp, site: TestSite, body: Record<string, unknown>) {
  const res = await t.call(`/api/admin/sites/${site.id}/crawl`, admin(site.adminKey, body));
  const started = await res.json();
  assert.equal(res.status, 202, JSON.stringify(started));
  return await waitForJob(t, site, started.job.id);
}

/** Every URL a paginated kind lists, following the cursor. */
async function allUrls(t: TestApp, site: TestSite, job: string, kind: string) {
  const out: { url: string; reason: string }[] = [];
  let cursor: string | null = null;
  do {
    const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const res = await t.call(
      `/api/admin/sites/${site.id}/crawl/${job}/urls?kind=${kind}&limit=1000${q}`,
      admin(site.adminKey),
    );
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    out.push(...body.urls);
    cursor = body.cursor;
  } while (cursor);
  return out;
}

function heavySite(origin: string): Map<string, Route> {
  const routes = new Map<string, Route>();
  const long = (i: number) => `/deep/${i}/${"d".repeat(960)}`;
  const links = (hrefs: string[]) => hrefs.map((h) => `<a href="${h}">x</a>`).join("\n");
  routes.set(
    "/",
    html(
      "Start",
      links([
        "/links",
        "/excluded-many",
        "/headings",
        "/huge",
        "/etag",
        `/${"u".repeat(8 * 1024)}`,
        `http://elsewhere.example/${"o".repeat(8 * 1024)}`,
        ...Array.from({ length: 100 }, (_, i) => long(i)),
      ]),
    ),
  );
  // 20,000 links off the site, each a different URL: all skipped, none fetched.
  routes.set(
    "/links",
    html("Links", links(Array.from({ length: 20_000 }, (_, i) => `http://other-${i}.example/p`))),
  );
  // 30,000 same-site links the exclude pattern leaves out.
  routes.set(
    "/excluded-many",
    html("Excluded", links(Array.from({ length: 30_000 }, (_, i) => `/skip/${i}`))),
  );
  // Headings with a character outside Latin-1: V8 then stores every character in two bytes.
  const sections = Array.from(
    { length: 1000 },
    (_, i) =>
      `<h2 id="s-${i}-${"a".repeat(150)}">Section ${i} → ${"w".repeat(180)}</h2><p>Text ${i}.</p>`,
  ).join("");
  routes.set("/headings", html("Headings", sections));
  // 5 MB of text (under the 5 MiB body cap).
  const para = "<p>" + "lorem ipsum dolor sit amet ".repeat(37) + "</p>\n";
  routes.set("/huge", html("Huge", para.repeat(Math.floor(5_000_000 / para.length))));
  routes.set("/etag", {
    ...html("Etag", "<p>A page with an enormous validator.</p>"),
    headers: { "Content-Type": "text/html", "ETag": `"${"e".repeat(30_000)}"` },
  });
  for (let i = 0; i < 100; i++) routes.set(long(i), html(`Deep ${i}`, `<p>Deep page ${i}.</p>`));
  void origin;
  return routes;
}

Deno.test("crawl - a site of 20,000-link pages, 50,000 skipped URLs, 8 KB URLs and a 5 MB page crawls done, every KV write within the limits", async () => {
  const fx = serveSite();
  for (const [p, r] of heavySite(fx.origin)) fx.routes.set(p, r);
  const t = await startApp({ crawl: CRAWL });
  try {
    const site = await createSite(t, "enterprise");
    const job = await crawl(t, site, { url: fx.origin + "/", exclude: ["/skip/**"] });
    assert.equal(job.status, "done", job.error);
    assert.ok(job.counts.skipped >= 50_000, JSON.stringify(job));
    // Stored: start, the four link pages' targets that are pages, the 100 deep paths.
    assert.equal(job.counts.indexed, 1 + 5 + 100, JSON.stringify(job));
    assert.equal(job.progress.done, job.progress.total);
    // The job answers a short sample; the whole lists are paginated.
    assert.ok(job.skipped.length <= 20 && job.failed.length <= 20);
    const skipped = await allUrls(t, site, job.id, "skipped");
    assert.equal(skipped.length, job.counts.skipped);
    assert.equal(skipped.filter((u) => u.reason === "excluded").length, 30_000);
    assert.ok(skipped.some((u) => u.reason === "invalid_url" && u.url.length >= 2000));
    // The big page is stored and searchable; its headings are cut to what fits.
    const page = await t.services.pages.get(site.id, "/headings");
    assert.ok(page && page.sections!.length > 10 && page.sections!.length < 1000);
    assert.ok((await t.services.pages.get(site.id, "/huge"))!.body.length > 1_000_000);
    // KV refuses any write over its limits, so the crawl being done proves them kept; the
    // keys left are within the limit, and the job record stays small whatever the site.
    for await (const e of t.kv.list({ prefix: [] })) {
      assert.ok(keyBytes(e.key) <= KV_LIMITS.keyBytes);
      if (e.key[0] === "crawljob") assert.ok(JSON.stringify(e.value).length < 16_384);
    }
    // A second crawl: every stored page unchanged (the 304s), still done.
    const again = await crawl(t, site, { url: fx.origin + "/", exclude: ["/skip/**"] });
    assert.equal(again.status, "done", again.error);
    assert.equal(again.counts.indexed, 0, JSON.stringify(again.counts));
    assert.equal(again.counts.unchanged, job.counts.indexed);
  } finally {
    t.close();
    await fx.close();
  }
});

Deno.test("crawl - a page the store cannot keep is a failed too_large entry and the crawl goes on", async () => {
  const fx = serveSite(
    new Map([
      ["/", html("Start", `<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>`)],
      ["/a", html("A", "<p>Alpha.</p>")],
      ["/b", html("B", "<p>Beta.</p>")],
      ["/c", html("C", "<p>Gamma.</p>")],
      ["/about", html("About", "<p>About.</p>")],
    ]),
  );
  const t = await startApp({ crawl: CRAWL });
  // KV refuses /b the way it refuses an oversize value.
  const upsert = t.services.pages.upsert.bind(t.services.pages);
  t.services.pages.upsert = (site, input, max) =>
    input.url === "/b"
      ? Promise.reject(new TypeError("Value too large (max 65536 bytes)"))
      : upsert(site, input, max);
  try {
    const site = await createSite(t, "business");
    const job = await crawl(t, site, { url: fx.origin + "/" });
    assert.equal(job.status, "done", job.error);
    assert.equal(job.counts.indexed, 4);
    assert.deepEqual(
      job.failed.map((f: { url: string; reason: string }) => [f.url, f.reason]),
      [[fx.origin + "/b", "too_large"]],
    );
    // The paged list: validated, a page at a time, 404 for another job.
    const get = async (q: string, job = job0) => {
      const res = await t.call(
        `/api/admin/sites/${site.id}/crawl/${job}/urls${q}`,
        admin(site.adminKey),
      );
      return [res.status, await res.json()];
    };
    const job0 = job.id;
    const [bad, badBody] = await get("?kind=everything");
    assert.deepEqual([bad, badBody.error.code, badBody.error.param], [
      400,
      "INVALID_PARAMETER",
      "kind",
    ]);
    const [badCursor, cursorBody] = await get("?kind=failed&cursor=abc");
    assert.deepEqual([badCursor, cursorBody.error.param], [400, "cursor"]);
    assert.equal((await get("?kind=failed", "cj_nope"))[0], 404);
    assert.deepEqual(await get("?kind=failed&limit=1"), [200, {
      urls: [{ url: fx.origin + "/b", reason: "too_large" }],
      cursor: null,
    }]);
    assert.deepEqual(await get("?kind=skipped"), [200, { urls: [], cursor: null }]);
  } finally {
    t.close();
    await fx.close();
  }
});

Deno.test("crawl - storage down mid-crawl does not fail the job: it waits, resumes by itself and ends done", async () => {
  const fx = serveSite(
    new Map([
      ["/", html("Start", `<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>`)],
      ["/a", html("A", "<p>Alpha.</p>")],
      ["/b", html("B", "<p>Beta.</p>")],
      ["/c", html("C", "<p>Gamma.</p>")],
      ["/about", html("About", "<p>About.</p>")],
    ]),
  );
  const t = await startApp({ crawl: CRAWL });
  // The store answers 503 (as the resilient KV does for a failed disk) twice, then recovers.
  let faults = 2;
  const upsert = t.services.pages.upsert.bind(t.services.pages);
  t.services.pages.upsert = (site, input, max) =>
    input.url === "/b" && faults-- > 0
      ? Promise.reject(storageUnavailable(new Error("disk I/O error")))
      : upsert(site, input, max);
  try {
    const site = await createSite(t, "business");
    const job = await crawl(t, site, { url: fx.origin + "/" });
    assert.equal(job.status, "done", job.error);
    assert.equal(faults, -1, "the page was tried again after each fault");
    assert.equal(job.counts.indexed, 5);
    assert.equal(job.counts.failed, 0);
    assert.ok(await t.services.pages.get(site.id, "/b"));
  } finally {
    t.close();
    await fx.close();
  }
});

Deno.test("crawl - a job's record never says it ended before the site is free, however slow its writes", async () => {
  // Pages of many links make flushes of many commits; each commit is slowed down, so the
  // crawl ends while a flush is under way.
  const links = (p: number) =>
    Array.from({ length: 3000 }, (_, i) => `<a href="http://o${i}.p${p}.example/">o</a>`).join("");
  const fx = serveSite(
    new Map([
      ["/", html("Start", `<a href="/a">a</a><a href="/b">b</a>${links(0)}`)],
      ["/a", html("A", `<p>Alpha.</p>${links(1)}`)],
      ["/b", html("B", `<p>Beta.</p>${links(2)}`)],
      ["/about", html("About", "<p>About.</p>")],
    ]),
  );
  const t = await startApp({ crawl: CRAWL });
  const atomic = t.kv.atomic.bind(t.kv);
  t.kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = async () => {
      await new Promise((r) => setTimeout(r, 40));
      return commit();
    };
    return op;
  };
  try {
    const site = (await t.services.sites.create({ name: "Race", plan: "pro" })).site;
    for (let i = 0; i < 2; i++) {
      const started = await startCrawlJob(t.services, site, { url: fx.origin + "/" });
      // Every state the record goes through: once ended, it never runs again, and by then
      // the site's lock is gone.
      const seen: string[] = [];
      const watch = (async () => {
        for await (
          const [e] of t.kv.watch<[{ status: string }]>([["crawljob", site.id, started.job.id]])
        ) {
          const status = e.value?.status ?? "none";
          if (seen.at(-1) !== status) seen.push(status);
          if (status === "done" || status === "failed") {
            assert.equal((await t.kv.get(["crawllock", site.id])).value, null, seen.join(" "));
            return;
          }
        }
      })();
      const job = await started.done;
      await watch;
      assert.equal(job.status, "done", job.error ?? "");
      assert.deepEqual(seen.filter((x) => x !== "queued"), ["running", "done"]);
    }
  } finally {
    t.close();
    await fx.close();
  }
});
