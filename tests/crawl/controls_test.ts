import assert from "node:assert/strict";
import { recrawlDue, startCrawlWorker } from "../../lib/crawl/worker.ts";
import { compilePattern } from "../../lib/crawl/patterns.ts";
import {
  admin,
  createSite,
  manualClock,
  OPERATOR,
  startApp,
  type TestApp,
  type TestSite,
} from "../helpers.ts";
import { docsSite, html, serveSite, urlsetWithLastmod } from "../fixtures/crawl_site.ts";

const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));
const CRAWL = { allowLoopback: true, delayMs: 0, resolve: noDns };

async function startCrawl(t: TestApp, site: TestSite, body: Record<string, unknown>) {
  const res = await t.call(`/api/admin/sites/${site.id}/crawl`, admin(site.adminKey, body));
  const started = await res.json();
  assert.equal(res.status, 202, JSON.stringify(started));
  return await waitForJob(t, site, started.job.id);
}

async function waitForJob(t: TestApp, site: TestSite, id: string) {
  for (let i = 0; i < 1000; i++) {
    const res = await t.call(`/api/admin/sites/${site.id}/crawl/${id}`, admin(site.adminKey));
    const job = await res.json();
    if (job.status !== "queued" && job.status !== "running") return job;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("crawl did not finish");
}

async function pageUrls(t: TestApp, site: TestSite): Promise<string[]> {
  const res = await t.call(`/api/admin/sites/${site.id}/pages`, admin(site.adminKey));
  return (await res.json()).pages.map((p: { url: string }) => p.url).sort();
}

const byReason = (items: { url: string; reason: string }[], origin: string, reason: string) =>
  items.filter((i) => i.reason === reason).map((i) => i.url.replace(origin, "")).sort();

function docs(lastmod?: string) {
  const site = serveSite();
  for (const [p, r] of docsSite(site.origin, lastmod)) site.routes.set(p, r);
  return site;
}

Deno.test("crawl controls - patterns: globs over the path, URLPatterns over the whole URL", () => {
  const u = (s: string) => new URL(s, "https://docs.example.com");
  assert.ok(compilePattern("/_modules/**")(u("/_modules/a/b.py")));
  assert.ok(!compilePattern("/_modules/*")(u("/_modules/a/b.py")));
  assert.ok(compilePattern("/_modules/*")(u("/_modules/a")));
  assert.ok(compilePattern("*.pdf")(u("/files/manual.pdf")));
  assert.ok(compilePattern("/search")(u("/search?q=x")), "a path pattern matches any query");
  assert.ok(compilePattern("https://docs.example.com/api/*")(u("/api/print?page=1")));
  assert.ok(!compilePattern("https://other.example.com/*")(u("/api/print")));
  assert.ok(compilePattern("/a/**/c")(u("/a/b/b/c")));
  assert.ok(!compilePattern("/a/*/c")(u("/a/b/b/c")));
  const t0 = performance.now();
  const nasty = compilePattern("/**a**a**a**a**a**a**a**a**b");
  assert.ok(!nasty(u("/" + "a".repeat(1000))));
  assert.ok(performance.now() - t0 < 500, "no catastrophic backtracking");
  assert.throws(() => compilePattern("relative/path"), /must start with/);
  assert.throws(() => compilePattern("https://exa mple.com/(["), /URLPattern/);
});

Deno.test("crawl controls - a start-page crawl reads robots.txt's sitemaps and leaves out excluded URLs unfetched, each with its reason", async () => {
  const site = docs();
  const t = await startApp({ crawl: CRAWL });
  const s = await createSite(t, "pro");
  const job = await startCrawl(t, s, { url: `${site.origin}/`, exclude: ["/_modules/**"] });
  assert.equal(job.status, "done", JSON.stringify(job));
  assert.deepEqual(job.exclude, ["/_modules/**"]);
  assert.deepEqual(await pageUrls(t, s), [
    "/",
    "/api/print?page=1",
    "/changelog",
    "/faq",
    "/guide/install",
    "/guide/usage",
  ]);
  assert.deepEqual(byReason(job.skipped, site.origin, "excluded"), [
    "/_modules/core",
    "/_modules/util",
  ]);
  assert.ok(!site.paths().some((p) => p.startsWith("/_modules/")), "excluded URLs are not fetched");
  assert.ok(site.paths().includes("/docs-sitemap.xml"));
  t.close();
  await site.close();
});

Deno.test("crawl controls - include keeps only matching pages; the start page is read for its links but not stored", async () => {
  const site = docs();
  const t = await startApp({ crawl: CRAWL });
  const s = await createSite(t, "pro");
  const job = await startCrawl(t, s, { url: `${site.origin}/`, include: ["/guide/**"] });
  assert.equal(job.status, "done");
  assert.deepEqual(await pageUrls(t, s), ["/guide/install", "/guide/usage"]);
  assert.deepEqual(byReason(job.skipped, site.origin, "not_included"), [
    "/",
    "/_modules/core",
    "/_modules/util",
    "/about", // every page's navigation links it
    "/api/print?page=1",
    "/changelog",
    "/faq",
  ]);
  assert.equal(job.counts.skipped, job.skipped.length);
  t.close();
  await site.close();
});

Deno.test("crawl controls - a site's own patterns apply to every crawl, remove what earlier crawls stored there; a URLPattern names whole URLs", async () => {
  const site = docs();
  const t = await startApp({ crawl: CRAWL });
  const s = await createSite(t, "pro");
  const before = await startCrawl(t, s, { url: `${site.origin}/` });
  assert.equal(before.counts.indexed, 8);
  const patch = await t.call(`/api/admin/sites/${s.id}`, {
    ...admin(s.adminKey, { exclude: ["/_modules/**", `${site.origin}/api/*`] }),
    method: "PATCH",
  });
  assert.equal(patch.status, 200);
  assert.deepEqual((await patch.json()).site.settings.exclude, [
    "/_modules/**",
    `${site.origin}/api/*`,
  ]);
  const job = await startCrawl(t, s, { url: `${site.origin}/` });
  assert.deepEqual(byReason(job.skipped, site.origin, "excluded"), [
    "/_modules/core",
    "/_modules/util",
    "/api/print?page=1",
  ]);
  assert.equal(job.counts.removed, 3, "pages now excluded leave the index");
  assert.deepEqual(await pageUrls(t, s), [
    "/",
    "/changelog",
    "/faq",
    "/guide/install",
    "/guide/usage",
  ]);
  t.close();
  await site.close();
});

Deno.test("crawl controls - bad patterns and schedules are refused with the parameter named", async () => {
  const t = await startApp({ crawl: CRAWL });
  const s = await createSite(t, "pro");
  const cases: [string, string, unknown][] = [
    ["PATCH", "exclude", { exclude: ["no-slash"] }],
    ["PATCH", "include", { include: "/docs/**" }],
    ["PATCH", "recrawl", { recrawl: "hourly" }],
    ["POST", "include", { url: "http://127.0.0.1:9/", include: [42] }],
    ["POST", "exclude", { url: "http://127.0.0.1:9/", exclude: Array(51).fill("/x") }],
  ];
  for (const [method, param, body] of cases) {
    const path = method === "PATCH" ? `/api/admin/sites/${s.id}` : `/api/admin/sites/${s.id}/crawl`;
    const res = await t.call(path, { ...admin(s.adminKey, body), method });
    const out = await res.json();
    assert.equal(res.status, 400, JSON.stringify(out));
    assert.equal(out.error.code, "INVALID_PARAMETER");
    assert.match(out.error.param, new RegExp(`^${param}`), JSON.stringify(out));
  }
  t.close();
});

Deno.test("crawl controls - a re-crawl leaves a sitemap page unfetched only while its lastmod is the one recorded, and picks up a change even when the new lastmod is backdated", async () => {
  const site = docs("2026-01-01");
  // Only the FAQ links to this page.
  site.routes.set("/faq", html("FAQ", `<p>Questions.</p><a href="/faq/only">more</a>`));
  site.routes.set("/faq/only", html("More answers", "<p>Reached from the FAQ alone.</p>"));
  const t = await startApp({ crawl: CRAWL });
  const s = await createSite(t, "pro");
  const first = await startCrawl(t, s, { url: `${site.origin}/` });
  assert.equal(first.counts.indexed, 9);
  const count = (p: string) => site.paths().filter((x) => x === p).length;
  assert.equal(count("/faq"), 1);

  const second = await startCrawl(t, s, { url: `${site.origin}/` });
  assert.equal(second.status, "done");
  assert.equal(count("/faq"), 1, "a sitemap page with the same lastmod is not fetched again");
  assert.equal(count("/changelog"), 1);
  assert.equal(count("/faq/only"), 2, "but the links it had are still followed");
  assert.equal(second.counts.unchanged, 9, "and counts as unchanged, like the 304s");
  assert.equal(second.counts.indexed, 0);
  assert.equal(second.counts.removed, 0);
  const urls = await pageUrls(t, s);
  assert.ok(urls.includes("/faq") && urls.includes("/faq/only"), "and all stay indexed");

  // The changelog changes; its lastmod moves, yet stays older than the last crawl's start.
  site.routes.set("/changelog", html("Changelog", "<p>The widget now hums quietly.</p>"));
  site.routes.set("/docs-sitemap.xml", {
    headers: { "Content-Type": "application/xml" },
    body: urlsetWithLastmod(site.origin, [["/faq", "2026-01-01"], ["/changelog", "2026-02-01"]]),
  });
  const third = await startCrawl(t, s, { url: `${site.origin}/` });
  assert.equal(count("/changelog"), 2, "a page whose lastmod moved is fetched");
  assert.equal(count("/faq"), 1);
  assert.equal(third.counts.indexed, 1);
  assert.match((await t.services.pages.get(s.id, "/changelog"))!.body, /hums quietly/);

  // A lastmod moved back in time is a change too.
  site.routes.set("/docs-sitemap.xml", {
    headers: { "Content-Type": "application/xml" },
    body: urlsetWithLastmod(site.origin, [["/faq", "2025-06-01"], ["/changelog", "2026-02-01"]]),
  });
  await startCrawl(t, s, { url: `${site.origin}/` });
  assert.equal(count("/faq"), 2);
  assert.equal(count("/changelog"), 2);
  t.close();
  await site.close();
});

Deno.test("crawl controls - a site's daily re-crawl is shown and started once a day has passed", async () => {
  const site = docs();
  const clock = manualClock(Date.now());
  const t = await startApp({ crawl: CRAWL, clock });
  const s = await createSite(t, "pro");
  const get = async () =>
    (await (await t.call(`/api/admin/sites/${s.id}`, admin(s.adminKey))).json()).site;
  const patch = await t.call(`/api/admin/sites/${s.id}`, {
    ...admin(s.adminKey, { recrawl: "daily" }),
    method: "PATCH",
  });
  assert.equal(patch.status, 200);
  await patch.body?.cancel();
  assert.equal((await get()).settings.recrawl, "daily");
  assert.equal((await get()).nextCrawlAt, null, "nothing to repeat before a first crawl");
  const first = await startCrawl(t, s, { url: `${site.origin}/`, exclude: ["/_modules/**"] });
  assert.equal(first.trigger, "manual");
  assert.equal((await get()).nextCrawlAt, new Date(clock() + 24 * 3600_000).toISOString());

  assert.deepEqual(await recrawlDue(t.services), [], "not due yet");
  clock.advance(24 * 3600_000 + 1000);
  const [id] = await recrawlDue(t.services);
  assert.match(id, /^cj_/);
  const scheduled = await waitForJob(t, s, id);
  assert.equal(scheduled.status, "done");
  assert.equal(scheduled.trigger, "schedule");
  assert.equal(scheduled.url, `${site.origin}/`);
  assert.deepEqual(scheduled.exclude, ["/_modules/**"], "the last crawl's patterns are kept");
  assert.deepEqual(await recrawlDue(t.services), [], "once per period");

  // Without Deno.cron the hourly check is a timer; the instance that runs it claims the hour in KV.
  const worker = startCrawlWorker(t.services, { cron: false });
  worker.stop();
  await new Promise((r) => setTimeout(r, 50));
  const tick = await t.kv.get<number>(["config", "recrawlTick"]);
  assert.ok(
    tick.value && tick.value > clock(),
    "the hour is claimed: no other instance checks again",
  );
  const off = await t.call(`/api/admin/sites/${s.id}`, {
    ...admin(OPERATOR, { recrawl: null }),
    method: "PATCH",
  });
  await off.body?.cancel();
  assert.equal((await get()).nextCrawlAt, null);
  t.close();
  await site.close();
});

Deno.test("crawl controls - a crawl saved in many short steps stores every page once and fetches each once", async () => {
  const site = docs();
  const t = await startApp({ crawl: CRAWL });
  const worker = startCrawlWorker(t.services, { stepMs: 1 });
  worker.stop();
  const s = await createSite(t, "pro");
  const job = await startCrawl(t, s, { url: `${site.origin}/` });
  assert.equal(job.status, "done", JSON.stringify(job));
  assert.ok(job.step >= 3, `ran in ${job.step + 1} steps`);
  assert.equal(job.counts.indexed, 8);
  assert.equal((await pageUrls(t, s)).length, 8);
  const pages = site.paths().filter((p) => p !== "/robots.txt");
  assert.deepEqual(pages, [...new Set(pages)], "no page or sitemap is fetched twice");
  // The runner holding the lease goes on with the crawl it has, not one rebuilt from KV.
  assert.equal(site.paths().filter((p) => p === "/robots.txt").length, 1);
  t.close();
  await site.close();
});

Deno.test("crawl controls - a job whose runner is gone does not block a new crawl: the new one replaces it", async () => {
  const site = docs();
  site.routes.set("/", { stall: "headers" });
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const t1 = await startApp({ kvPath: path, crawl: CRAWL });
  const s = await createSite(t1, "pro");
  const res = await t1.call(
    `/api/admin/sites/${s.id}/crawl`,
    admin(s.adminKey, { url: `${site.origin}/` }),
  );
  const stuck = (await res.json()).job.id;
  const again = await t1.call(
    `/api/admin/sites/${s.id}/crawl`,
    admin(s.adminKey, { url: `${site.origin}/` }),
  );
  assert.equal(again.status, 409);
  await again.body?.cancel();
  // Its runner holds the job once it asks for the home page (which stalls); a job no runner
  // took yet is another instance's to take, and blocks a new crawl meanwhile.
  for (const end = Date.now() + 10_000; !site.paths().includes("/");) {
    assert.ok(Date.now() < end, "the runner asks for the home page");
    await new Promise((r) => setTimeout(r, 20));
  }
  t1.close(); // the instance goes away mid-crawl
  // Another instance, later: the stuck job's heartbeat is old.
  const t2 = await startApp({ kvPath: path, crawl: CRAWL, clock: () => Date.now() + 60_000 });
  site.routes.set("/", docsSite(site.origin).get("/")!);
  const replaced = await t2.call(
    `/api/admin/sites/${s.id}/crawl`,
    admin(s.adminKey, { url: `${site.origin}/` }),
  );
  assert.equal(replaced.status, 202);
  const fresh = (await replaced.json()).job.id;
  const old = await (await t2.call(`/api/admin/sites/${s.id}/crawl/${stuck}`, admin(OPERATOR)))
    .json();
  assert.equal(old.status, "interrupted");
  assert.equal((await waitForJob(t2, s, fresh)).status, "done");
  await site.close();
  t2.close();
  await Deno.remove(path);
});
