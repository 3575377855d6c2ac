/**
 * One owner's crawl patterns cannot stall the service: a URLPattern is parsed by URLPattern but
 * matched by our own automaton, linear in the URL, and regular-expression groups are refused.
 */
import assert from "node:assert/strict";
import { admin, createSite, startApp } from "../helpers.ts";
import { html, serveSite } from "../fixtures/crawl_site.ts";
import { compilePattern } from "../../lib/crawl/patterns.ts";
import { jobKey, lockKey } from "../../lib/crawl/job_record.ts";
import { sweepCrawls } from "../../lib/crawl/jobs.ts";

const CRAWL = {
  allowLoopback: true,
  delayMs: 0,
  resolve: (h: string) => Promise.reject(new Error(`no DNS in tests (${h})`)),
};

Deno.test("tenants - a URLPattern with a regular-expression group is refused, naming the pattern", async () => {
  const t = await startApp({ crawl: CRAWL });
  const s = await createSite(t, "pro");
  const evil = "https://docs.example.com/((?:a+)+b)";
  const cases: [string, string, Record<string, unknown>, string][] = [
    ["PATCH", `/api/admin/sites/${s.id}`, { include: ["/docs/**", evil] }, "include[1]"],
    ["PATCH", `/api/admin/sites/${s.id}`, { exclude: ["https://x.test/{a}?"] }, "exclude[0]"],
    [
      "POST",
      `/api/admin/sites/${s.id}/crawl`,
      { url: "http://127.0.0.1:9/", include: [evil] },
      "include[0]",
    ],
  ];
  for (const [method, path, body, param] of cases) {
    const res = await t.call(path, { ...admin(s.adminKey, body), method });
    const out = await res.json();
    assert.equal(res.status, 400, JSON.stringify(out));
    assert.equal(out.error.code, "INVALID_PARAMETER");
    assert.equal(out.error.param, param);
    assert.match(out.error.message, /only literal text, \* and :name groups/);
  }
  t.close();
});

Deno.test("tenants - URLPatterns match as URLPattern does, in time linear in the URL", () => {
  const u = (s: string) => new URL(s, "https://docs.example.com");
  const cases: [string, string][] = [
    ["https://docs.example.com/api/*", "/api/print?page=1"],
    ["https://other.example.com/*", "/api/print"],
    ["https://*.example.com/:lang/*", "https://docs.example.com/en/x"],
    ["https://*.example.com/:lang/*", "https://docs.example.com/en"],
    ["https://docs.example.com/:lang/guide", "/de/guide"],
    ["https://docs.example.com/:lang/guide", "/de/x/guide"],
    ["https://docs.example.com/:lang/guide", "//guide"],
    ["http*://docs.example.com/*", "/x"],
    ["https://docs.example.com/a\\*b", "/a*b"],
    ["https://docs.example.com/*.pdf", "/files/a.pdf"],
    ["https://docs.example.com/*.pdf", "/files/a.pdfx"],
  ];
  for (const [pattern, url] of cases) {
    const want = new URLPattern(pattern).test(u(url).href);
    assert.equal(compilePattern(pattern)(u(url)), want, `${pattern} on ${url}`);
  }
  // Ten wildcards against a 5,000-letter link: URLPattern's regular expression would take ages.
  const nasty = compilePattern("https://x.test/*a*a*a*a*a*a*a*a*a*a*b");
  const t0 = performance.now();
  assert.equal(nasty(new URL("https://x.test/" + "a".repeat(5000) + "!")), false);
  assert.ok(performance.now() - t0 < 200, `${(performance.now() - t0).toFixed(0)} ms`);
});

Deno.test("tenants - a crawl with a wildcard-heavy URLPattern and a crafted link never stalls the service", async () => {
  const site = serveSite();
  const crafted = "/" + "a".repeat(4000) + "!";
  site.routes.set(
    "/",
    html("Start", `<a href="${crafted}">x</a> <a href="/a-a-a-b">ab</a> <a href="/guide">g</a>`),
  );
  site.routes.set("/a-a-a-b", html("AB", "<p>Alpha beta.</p>"));
  site.routes.set("/guide", html("Guide", "<p>Read me.</p>"));
  site.routes.set(crafted, html("Crafted", "<p>Never stored.</p>"));
  const t = await startApp({ crawl: CRAWL });
  const s = await createSite(t, "pro");
  // The event loop's longest pause, and /healthz answered all along.
  let last = performance.now();
  let worst = 0;
  const beat = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 20);
  try {
    const res = await t.call(
      `/api/admin/sites/${s.id}/crawl`,
      admin(s.adminKey, {
        url: `${site.origin}/`,
        include: [`${site.origin}/*a*a*a*b`],
      }),
    );
    const { job } = await res.json();
    assert.equal(res.status, 202);
    let ended;
    for (let i = 0; i < 500; i++) {
      const health = await t.call("/healthz");
      await health.body?.cancel();
      assert.equal(health.status, 200);
      const r = await t.call(`/api/admin/sites/${s.id}/crawl/${job.id}`, admin(s.adminKey));
      ended = await r.json();
      if (ended.status !== "queued" && ended.status !== "running") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(ended.status, "done", JSON.stringify(ended));
    assert.ok(worst < 1000, `the event loop stopped for ${worst.toFixed(0)} ms`);
    const pages = await t.call(`/api/admin/sites/${s.id}/pages`, admin(s.adminKey));
    const urls = (await pages.json()).pages.map((p: { url: string }) => p.url);
    assert.deepEqual(urls, ["/a-a-a-b"], "only what the pattern includes is stored");
  } finally {
    clearInterval(beat);
    t.close();
    await site.close();
  }
});

Deno.test("tenants - a pattern stored before patterns were checked ends its crawl with a clear error", async () => {
  const site = serveSite();
  site.routes.set("/", html("Start", "<p>Hello.</p>"));
  const t = await startApp({ crawl: CRAWL });
  const s = await createSite(t, "pro");
  const res = await t.call(
    `/api/admin/sites/${s.id}/crawl`,
    admin(s.adminKey, {
      url: `${site.origin}/`,
    }),
  );
  const { job } = await res.json();
  // Wait for it to end, then write a job as an older version could have stored it.
  for (let i = 0; i < 200; i++) {
    const r = await t.call(`/api/admin/sites/${s.id}/crawl/${job.id}`, admin(s.adminKey));
    if ((await r.json()).status === "done") break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const old = (await t.kv.get<Record<string, unknown>>(jobKey(s.id, job.id))).value!;
  const id = "cj_old_pattern";
  await t.kv.set(jobKey(s.id, id), {
    ...old,
    id,
    status: "queued",
    finishedAt: null,
    runner: null,
    include: ["https://x.test/((?:a+)+b)"],
  });
  await t.kv.set(lockKey(s.id), id);
  assert.deepEqual(await sweepCrawls(t.services), [id]);
  let ended;
  for (let i = 0; i < 200; i++) {
    const r = await t.call(`/api/admin/sites/${s.id}/crawl/${id}`, admin(s.adminKey));
    ended = await r.json();
    if (ended.status !== "queued" && ended.status !== "running") break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(ended.status, "failed", JSON.stringify(ended));
  assert.match(ended.error, /A crawl pattern is refused/);
  t.close();
  await site.close();
});
