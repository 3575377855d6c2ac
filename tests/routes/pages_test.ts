/** The service's own pages rendered on the server: landing, API reference, results page, assets. */
import assert from "node:assert/strict";
import { scriptJson } from "../../components/Island.tsx";
import { ensureDemoSite } from "../../lib/demo/site.ts";
import { createSite, OPERATOR, putPages, startApp } from "../helpers.ts";

const html = async (res: Response) => {
  assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
  assert.match(res.headers.get("content-security-policy") ?? "", /script-src 'self'/);
  return await res.text();
};

/** The JSON props of every island on a page, by island name. */
function islandProps(page: string): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const re =
    /<div data-island="(\w+)" class="island"><script type="application\/json">(.*?)<\/script>/g;
  for (const m of page.matchAll(re)) out[m[1]] = JSON.parse(m[2]);
  return out;
}

Deno.test("pages - the landing page says what the service does, links everything, ships no JavaScript", async () => {
  const t = await startApp();
  try {
    const demo = await ensureDemoSite(t.services);
    const res = await t.call("/");
    const page = await html(res);
    assert.equal(res.status, 200);
    assert.match(page, /<h1>Site search with AI answers/);
    for (const href of ["/demo/", "/search-results", "/dashboard", "/docs/api"]) {
      assert.ok(page.includes(`href="${href}`), href);
    }
    assert.ok(!page.includes("<script"), "a page without islands ships no JavaScript");
    for (const secret of [OPERATOR, demo.adminKey, demo.publicKey]) {
      assert.ok(!page.includes(secret));
    }
    const api = await t.call("/docs/api");
    assert.match(await html(api), /The API in short/);
    const post = await t.call("/", { method: "POST" });
    assert.equal(post.status, 405);
    await post.body?.cancel();
  } finally {
    t.close();
  }
});

Deno.test("pages - the stylesheet and the islands bundle are served from the repo, with ETags", async () => {
  const t = await startApp();
  try {
    for (
      const [path, type] of [["/assets/app.css", "text/css"], [
        "/assets/islands/boot_results.js",
        "text/javascript",
      ]]
    ) {
      const res = await t.call(path);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type")!, new RegExp(type));
      assert.ok((await res.text()).length > 1000);
      const again = await t.call(path, { headers: { "If-None-Match": res.headers.get("etag")! } });
      assert.equal(again.status, 304);
      await again.body?.cancel();
    }
    const missing = await t.call("/assets/nope.js");
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, "NOT_FOUND");
  } finally {
    t.close();
  }
});

Deno.test("pages - scriptJson escapes every character that could end the script or the JSON", () => {
  const value = { a: "</script><script>alert(1)</script>", b: "<!-- & \u2028\u2029 -->" };
  const text = scriptJson(value);
  assert.ok(!/[<>&\u2028\u2029]/.test(text));
  assert.deepEqual(JSON.parse(text), value);
});

Deno.test("pages - the results page renders the first page of results on the server, props escaped", async () => {
  const t = await startApp();
  try {
    const site = await createSite(t, "basic");
    const hostile =
      `Kettle </script><script>window.__pwned=1</script> <img src=x onerror=alert(1)>`;
    await putPages(t, site, [
      { url: "/kettles", title: "Quiet kettles", body: "Our kettles boil water quietly." },
      { url: "/evil", title: hostile, body: "A kettle page with a hostile title." },
    ]);
    const q = `kettle </script><b>`;
    const res = await t.call(`/search-results?key=${site.publicKey}&q=${encodeURIComponent(q)}`);
    const page = await html(res);
    assert.equal(res.status, 200);
    // Usable without JavaScript: results, highlights and the form are in the HTML.
    assert.match(page, /<a href="\/kettles">Quiet <mark>kettles<\/mark><\/a>/);
    assert.match(
      page,
      /<form class="searchbox" role="search" method="get" action="\/search-results">/,
    );
    assert.match(page, /2 results for “kettle &lt;\/script>&lt;b>”/);
    // Exactly the bundle and three inert JSON scripts: nothing from a prop became a tag.
    assert.equal(page.match(/<script/g)?.length, 4);
    assert.equal(page.match(/<\/script>/g)?.length, 4);
    assert.ok(
      page.includes(`<script type="module" src="/assets/islands/boot_results.js"></script>`),
    );
    assert.ok(!page.includes("<script>window.__pwned") && !page.includes("<img src=x"));
    const props = islandProps(page);
    assert.deepEqual(Object.keys(props).sort(), ["Answer", "Results", "SearchBox"]);
    assert.equal(props.SearchBox.q, q.trim());
    const titles = (props.Results.results as { title: string }[]).map((r) => r.title);
    assert.ok(titles.includes(hostile), "the props carry the value unchanged");
    assert.equal(props.Results.found, 2);
    assert.equal(props.Answer.enabled, true);
    // The server render was a search like any other.
    const usage = await t.services.quota.usage(site.id);
    assert.equal(usage.minute, 1);
  } finally {
    t.close();
  }
});

Deno.test("pages - the results page uses the demo key by default and says when a key is wrong", async () => {
  const t = await startApp();
  try {
    const none = await t.call("/search-results?q=shipping");
    assert.equal(none.status, 401);
    assert.match(await html(none), /Give a site&#39;s public key|Give a site's public key/);
    const demo = await ensureDemoSite(t.services);
    const res = await t.call("/search-results?q=shipping&page=abc");
    const page = await html(res);
    assert.equal(res.status, 200);
    assert.match(page, /<a href="\/demo\/shipping">/);
    assert.equal(islandProps(page).Results.apiKey, demo.publicKey);
    assert.equal(islandProps(page).Results.page, 1);
    const wrong = await t.call(`/search-results?key=pk_${"x".repeat(24)}&q=shipping`);
    assert.equal(wrong.status, 401);
    assert.match(await html(wrong), /Search is not available on this page\./);
    const empty = await t.call(`/search-results?key=${demo.publicKey}`);
    const emptyPage = await html(empty);
    assert.equal(empty.status, 200);
    assert.equal(islandProps(emptyPage).Results.results, null);
  } finally {
    t.close();
  }
});
