/**
 * IndexNow end to end: a real site on 127.0.0.1, crawled by the real app, then changed and
 * pinged as a CMS would ping, with the answers the protocol names.
 */
import assert from "node:assert/strict";
import { PINGS_PER_MINUTE } from "../../lib/indexnow/host_limit.ts";
import {
  admin,
  createSite,
  manualClock,
  startApp,
  type TestApp,
  type TestSite,
} from "../helpers.ts";
import { crawlToEnd, foundPaths, searchUntil } from "../fixtures/waits.ts";
import { type FixtureSite, html, serveSite } from "../fixtures/crawl_site.ts";

const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));
const CRAWL = { allowLoopback: true, delayMs: 0, resolve: noDns };
const KEY = "5f1c0a7e-indexnow-key-0042";

/** A blog of three pages linked from its home page, and its IndexNow key file. */
function blog(): FixtureSite {
  const links = '<a href="/posts/kettles">Kettles</a> <a href="/posts/teapots">Teapots</a>';
  return serveSite(
    new Map([
      ["/", html("Home", `<p>Welcome to the blog.</p>${links}`)],
      ["/posts/kettles", html("Kettles", "<p>Our kettles boil water quickly.</p>")],
      ["/posts/teapots", html("Teapots", "<p>Our teapots are porcelain.</p>")],
      [`/${KEY}.txt`, { headers: { "Content-Type": "text/plain" }, body: `${KEY}\n` }],
    ]),
  );
}

/** POSTs a ping as JSON; the status, Retry-After and body. */
async function post(t: TestApp, body: unknown, type = "application/json; charset=utf-8") {
  const res = await t.call("/indexnow", {
    method: "POST",
    headers: { "Content-Type": type },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.json() };
}

async function get(t: TestApp, params: Record<string, string>) {
  const res = await t.call(`/indexnow?${new URLSearchParams(params)}`);
  return { status: res.status, body: await res.json() };
}

/** Requests the site saw since `from` (an index into its log). */
const since = (fx: FixtureSite, from: number) => fx.requests.slice(from).map((r) => r.path);

Deno.test("indexnow - a good key by POST or GET re-fetches the pages at once for every site crawling the host", async () => {
  const fx = blog();
  const t = await startApp({ crawl: CRAWL });
  try {
    const one = await createSite(t, "business", "Blog");
    const two = await createSite(t, "pro", "Blog mirror");
    await crawlToEnd(t, one, { url: `${fx.origin}/` });
    await crawlToEnd(t, two, { url: `${fx.origin}/` });
    assert.deepEqual(await foundPaths(t, one, "boil"), ["/posts/kettles"]);
    const host = new URL(fx.origin).host;

    fx.routes.set("/posts/kettles", html("Kettles", "<p>Our kettles now whistle a tune.</p>"));
    const before = fx.requests.length;
    const posted = await post(t, { host, key: KEY, urlList: [`${fx.origin}/posts/kettles`] });
    assert.equal(posted.status, 202, JSON.stringify(posted.body));
    assert.deepEqual(posted.body, { queued: 2, sites: 2 });
    for (const site of [one, two]) {
      assert.deepEqual(await searchUntil(t, site, "whistle", (p) => p.length > 0), [
        "/posts/kettles",
      ]);
    }
    // The key file was read, and the page fetched; no full crawl (the home page was not asked).
    assert.ok(since(fx, before).includes(`/${KEY}.txt`));
    assert.ok(!since(fx, before).includes("/"));

    fx.routes.set("/posts/teapots", html("Teapots", "<p>Our teapots are now stoneware.</p>"));
    const got = await get(t, { url: `${fx.origin}/posts/teapots`, key: KEY });
    assert.equal(got.status, 202, JSON.stringify(got.body));
    assert.deepEqual(got.body, { queued: 2, sites: 2 });
    await searchUntil(t, one, "stoneware", (p) => p.includes("/posts/teapots"));
    // A burst of pings reads the key file once: the verdict is remembered.
    assert.equal(since(fx, before).filter((p) => p === `/${KEY}.txt`).length, 1);
  } finally {
    t.close();
    await fx.close();
  }
});

Deno.test("indexnow - a page deleted on the site and pinged is gone from search", async () => {
  const fx = blog();
  const t = await startApp({ crawl: CRAWL });
  try {
    const site = await createSite(t, "business");
    await crawlToEnd(t, site, { url: `${fx.origin}/` });
    assert.deepEqual(await foundPaths(t, site, "porcelain"), ["/posts/teapots"]);
    fx.routes.delete("/posts/teapots");
    const res = await get(t, { url: `${fx.origin}/posts/teapots`, key: KEY });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    await searchUntil(t, site, "porcelain", (p) => p.length === 0);
    assert.deepEqual(await foundPaths(t, site, "boil"), ["/posts/kettles"]);
  } finally {
    t.close();
    await fx.close();
  }
});

Deno.test("indexnow - a key the key file does not hold is 403 and fetches no page", async () => {
  const fx = blog();
  const t = await startApp({ crawl: CRAWL });
  try {
    const site = await createSite(t, "business");
    await crawlToEnd(t, site, { url: `${fx.origin}/` });
    const host = new URL(fx.origin).host;
    const page = `${fx.origin}/posts/kettles`;
    const before = fx.requests.length;

    // The file holds another text.
    fx.routes.set("/other-key-123.txt", { body: "not-this-key-at-all" });
    const wrong = await post(t, { host, key: "other-key-123", urlList: [page] });
    assert.equal(wrong.status, 403);
    assert.equal(wrong.body.error.code, "INDEXNOW_KEY_NOT_VALID");
    assert.match(wrong.body.error.message, /another text/);
    // No file at all (404).
    const missing = await get(t, { url: page, key: "never-uploaded-key" });
    assert.equal(missing.status, 403);
    assert.match(missing.body.error.message, /answered 404/);
    // A keyLocation that is not there either.
    const located = await post(t, {
      host,
      key: KEY,
      keyLocation: `${fx.origin}/posts/${KEY}.txt`,
      urlList: [page],
    });
    assert.equal(located.status, 403);

    assert.deepEqual(since(fx, before), [
      "/other-key-123.txt",
      "/never-uploaded-key.txt",
      `/posts/${KEY}.txt`,
    ]);
  } finally {
    t.close();
    await fx.close();
  }
});

Deno.test("indexnow - a key file in a folder vouches for that folder's URLs only", async () => {
  const fx = blog();
  fx.routes.set("/posts/key.txt", { body: KEY });
  const t = await startApp({ crawl: CRAWL });
  try {
    const site = await createSite(t, "business");
    await crawlToEnd(t, site, { url: `${fx.origin}/` });
    const host = new URL(fx.origin).host;
    const keyLocation = `${fx.origin}/posts/key.txt`;
    const outside = await post(t, {
      host,
      key: KEY,
      keyLocation,
      urlList: [`${fx.origin}/posts/kettles`, `${fx.origin}/`],
    });
    assert.equal(outside.status, 422);
    assert.equal(outside.body.error.code, "INDEXNOW_URL_NOT_ON_HOST");
    assert.equal(outside.body.error.param, "urlList[1]");

    fx.routes.set("/posts/kettles", html("Kettles", "<p>Kettles in copper, at last.</p>"));
    const inside = await post(t, {
      host,
      key: KEY,
      keyLocation,
      urlList: [`${fx.origin}/posts/kettles`],
    });
    assert.equal(inside.status, 202, JSON.stringify(inside.body));
    await searchUntil(t, site, "copper", (p) => p.includes("/posts/kettles"));
  } finally {
    t.close();
    await fx.close();
  }
});

Deno.test("indexnow - URLs of another host, and bodies the protocol does not take, are refused", async () => {
  const fx = blog();
  const other = blog();
  const t = await startApp({ crawl: CRAWL });
  try {
    const site = await createSite(t, "business");
    await crawlToEnd(t, site, { url: `${fx.origin}/` });
    const host = new URL(fx.origin).host;
    const page = `${fx.origin}/posts/kettles`;
    const before = fx.requests.length;

    const offHost = await post(t, { host, key: KEY, urlList: [page, `${other.origin}/`] });
    assert.equal(offHost.status, 422);
    assert.deepEqual(
      [offHost.body.error.code, offHost.body.error.param],
      ["INDEXNOW_URL_NOT_ON_HOST", "urlList[1]"],
    );
    const notJson = await post(t, "{host: nope");
    assert.deepEqual([notJson.status, notJson.body.error.code], [400, "INVALID_JSON"]);
    const noList = await post(t, { host, key: KEY });
    assert.deepEqual([noList.status, noList.body.error.param], [400, "urlList"]);
    const noHost = await post(t, { key: KEY, urlList: [page] });
    assert.deepEqual([noHost.status, noHost.body.error.param], [400, "host"]);
    const short = await post(t, { host, key: "abc", urlList: [page] });
    assert.deepEqual([short.status, short.body.error.code], [422, "INDEXNOW_KEY_MALFORMED"]);
    const noUrl = await get(t, { key: KEY });
    assert.deepEqual([noUrl.status, noUrl.body.error.param], [400, "url"]);
    const put = await t.call("/indexnow", { method: "PUT" });
    await put.body?.cancel();
    assert.equal(put.status, 405);
    assert.equal(put.headers.get("allow"), "GET, POST, OPTIONS");

    // None of these reached the site, nor the other host.
    assert.deepEqual(since(fx, before), []);
    assert.deepEqual(other.paths(), []);

    // A URL the crawler would not keep (its path is too long) is named as the ping names it.
    const long = `${fx.origin}/${"a".repeat(1_200)}`;
    const tooLong = await post(t, { host, key: KEY, urlList: [page, long] });
    assert.deepEqual([tooLong.status, tooLong.body.error.param], [400, "urlList[1]"]);
    assert.match(tooLong.body.error.message, /^urlList\[1\]/);
  } finally {
    t.close();
    await fx.close();
    await other.close();
  }
});

Deno.test("indexnow - a host no site here crawls is 422 and never fetched", async () => {
  const fx = blog();
  const t = await startApp({ crawl: CRAWL });
  try {
    await createSite(t, "business");
    const host = new URL(fx.origin).host;
    const res = await post(t, { host, key: KEY, urlList: [`${fx.origin}/posts/kettles`] });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, "INDEXNOW_HOST_NOT_CRAWLED");
    assert.match(res.body.error.message, new RegExp(`No site here crawls ${host}`));
    const got = await get(t, {
      url: `${fx.origin}/`,
      key: KEY,
      keyLocation: `${fx.origin}/${KEY}.txt`,
    });
    assert.equal(got.status, 422);
    assert.deepEqual(fx.paths(), [], "the host saw no request at all");
  } finally {
    t.close();
    await fx.close();
  }
});

Deno.test("indexnow - past 60 pings a minute a host gets 429 with Retry-After; other hosts do not", async () => {
  const clock = manualClock(Date.UTC(2026, 10, 15, 12, 0, 15));
  const t = await startApp({ crawl: CRAWL, clock });
  try {
    const ping = (host: string) => post(t, { host, key: KEY, urlList: [`http://${host}/page`] });
    // Refused pings count too: a flood is a flood whatever it carries.
    for (let i = 0; i < PINGS_PER_MINUTE; i++) {
      assert.equal((await ping("busy.localhost")).status, 422);
    }
    const over = await ping("busy.localhost");
    assert.equal(over.status, 429);
    assert.equal(over.body.error.code, "INDEXNOW_RATE_LIMIT_EXCEEDED");
    assert.equal(over.retryAfter, "45");
    assert.equal(over.body.error.retry_after, 45);
    assert.equal((await ping("quiet.localhost")).status, 422);
    clock.advance(45_000);
    assert.equal((await ping("busy.localhost")).status, 422);
  } finally {
    t.close();
  }
});

Deno.test("indexnow - a site with too many re-fetches waiting lets the others take the ping; when all have, 429", async () => {
  const fx = blog();
  const t = await startApp({ crawl: CRAWL });
  const one = await createSite(t, "business", "Blog");
  const two = await createSite(t, "pro", "Blog mirror");
  /** Whether any crawl or re-fetch of the site is still live. */
  const live = async (site: TestSite) => {
    const res = await t.call(`/api/admin/sites/${site.id}/crawl`, admin(site.adminKey));
    const { jobs } = await res.json();
    return jobs.some((j: { status: string }) => j.status === "queued" || j.status === "running");
  };
  /** Asks the owner's re-fetch of a page that never answers, until the site refuses more. */
  const fill = async (site: TestSite) => {
    for (let i = 0; i < 100; i++) {
      const res = await t.call(
        `/api/admin/sites/${site.id}/recrawl`,
        admin(site.adminKey, { urls: ["/posts/slow"] }),
      );
      await res.body?.cancel();
      if (res.status === 429) return;
      assert.equal(res.status, 202);
    }
    assert.fail("the site never refused a re-fetch");
  };
  try {
    await crawlToEnd(t, one, { url: `${fx.origin}/` });
    await crawlToEnd(t, two, { url: `${fx.origin}/` });
    fx.routes.set("/posts/slow", { stall: "headers" });
    const host = new URL(fx.origin).host;
    const ping = () => post(t, { host, key: KEY, urlList: [`${fx.origin}/posts/teapots`] });

    await fill(one);
    const taken = await ping();
    assert.equal(taken.status, 202, JSON.stringify(taken.body));
    assert.deepEqual(taken.body, { queued: 1, sites: 1 });
    // The other site runs the ping's re-fetch beside the first one's hung ones; once it ended,
    // the other site is filled too.
    for (let i = 0; i < 500 && await live(two); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await live(two), false, "the ping's re-fetch ended");

    await fill(two);
    const refused = await ping();
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, "REFETCH_RATE_LIMIT_EXCEEDED");
    assert.ok(Number(refused.retryAfter) > 0);
  } finally {
    await fx.close(); // the stalled requests end, and the re-fetches with them
    for (let i = 0; i < 500 && (await live(one) || await live(two)); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    t.close();
  }
});

Deno.test("indexnow - a key file taken down stops vouching once the remembered verdict runs out", async () => {
  const fx = blog();
  const clock = manualClock(Date.now());
  const t = await startApp({ crawl: CRAWL, clock });
  try {
    const site = await createSite(t, "business", "Blog");
    await crawlToEnd(t, site, { url: `${fx.origin}/` });
    const host = new URL(fx.origin).host;
    const ping = { host, key: KEY, urlList: [`${fx.origin}/posts/kettles`] };
    assert.equal((await post(t, ping)).status, 202);
    fx.routes.delete(`/${KEY}.txt`);
    // Still within the ten minutes a good verdict is kept: no second read of the file.
    clock.advance(9 * 60_000);
    assert.equal((await post(t, ping)).status, 202);
    clock.advance(60_000 + 1);
    const refused = await post(t, ping);
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, "INDEXNOW_KEY_NOT_VALID");
  } finally {
    t.close();
    await fx.close();
  }
});
