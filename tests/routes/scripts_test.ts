/** The built browser scripts: fresh, within budget, served for any origin with ETags; the demo site. */
import assert from "node:assert/strict";
import { BUNDLES, gzipSize, sourceHash, stampOf } from "../../scripts/build.ts";
import { DEMO_PAGES } from "../../lib/demo/pages.ts";
import { startApp } from "../helpers.ts";

const ROOT = new URL("../../", import.meta.url);
const read = (path: string) => Deno.readFile(new URL(path, ROOT));

Deno.test("scripts - the committed bundles are built from the current widget sources", async () => {
  const hash = await sourceHash();
  for (const b of BUNDLES) {
    assert.equal(await stampOf(b.out), hash, `${b.out} is stale or missing: run deno task build`);
  }
});

Deno.test("scripts - widget.js and results.js stay within their gzipped size budgets", async () => {
  const budgets: Record<string, number> = {
    "static/widget.js": 12 * 1024,
    "static/results.js": 12 * 1024,
  };
  for (const b of BUNDLES) {
    assert.equal(b.budget, budgets[b.out]);
    const size = await gzipSize(await read(b.out));
    assert.ok(size <= b.budget, `${b.out} is ${size} bytes gzipped, over ${b.budget}`);
  }
});

Deno.test("scripts - bundles are IIFEs with no eval, HTML sinks or inline styles", async () => {
  for (const b of BUNDLES) {
    const text = new TextDecoder().decode(await read(b.out));
    assert.match(text, /^\/\*! SiteSearch \S+ src:[0-9a-f]+ \*\/\n\(\(\)=>\{/);
    for (
      const bad of [
        /\beval\(/,
        /new Function\(/,
        /innerHTML/,
        /outerHTML/,
        /insertAdjacentHTML/,
        /document\.write/,
        /\.style\./,
        /setAttribute\("style"/,
        /setAttribute\("on/,
      ]
    ) {
      assert.doesNotMatch(text, bad, `${b.out} contains ${bad}`);
    }
  }
});

Deno.test("scripts - served for any origin with a content ETag, 304 on If-None-Match", async () => {
  const t = await startApp();
  try {
    for (const b of BUNDLES) {
      const path = "/" + b.out.replace("static/", "");
      const res = await t.call(path, { headers: { Origin: "https://customer.example" } });
      const body = new Uint8Array(await res.arrayBuffer());
      assert.equal(res.status, 200);
      assert.deepEqual(body, await read(b.out));
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.match(res.headers.get("content-type")!, /^text\/javascript/);
      const maxAge = Number(/max-age=(\d+)/.exec(res.headers.get("cache-control")!)?.[1]);
      assert.ok(maxAge > 0 && maxAge <= 3600, `short cache, got ${maxAge}`);
      const etag = res.headers.get("etag")!;
      assert.match(etag, /^"[A-Za-z0-9+/]{16,}"$/);

      const again = await t.call(path, { headers: { "If-None-Match": etag } });
      assert.equal(again.status, 304);
      assert.equal(await again.text(), "");
      assert.equal(again.headers.get("etag"), etag);
      assert.equal(again.headers.get("access-control-allow-origin"), "*");
      // A compressing proxy turns the tag weak; it still matches.
      const weak = await t.call(path, { headers: { "If-None-Match": `"other", W/${etag}` } });
      assert.equal(weak.status, 304);
      await weak.body?.cancel();
      const other = await t.call(path, { headers: { "If-None-Match": `"other"` } });
      assert.equal(other.status, 200);
      await other.body?.cancel();
      // Gzipped for clients that take it, under its own tag; either tag revalidates.
      const gz = await t.call(path, { headers: { "Accept-Encoding": "gzip, deflate, br" } });
      assert.equal(gz.headers.get("content-encoding"), "gzip");
      assert.match(gz.headers.get("vary")!, /Accept-Encoding/);
      const unzipped = gz.body!.pipeThrough(new DecompressionStream("gzip"));
      assert.deepEqual(new Uint8Array(await new Response(unzipped).arrayBuffer()), body);
      const gzTag = gz.headers.get("etag")!;
      assert.notEqual(gzTag, etag);
      const gz304 = await t.call(path, {
        headers: { "Accept-Encoding": "gzip", "If-None-Match": gzTag },
      });
      assert.equal(gz304.status, 304);
      await gz304.body?.cancel();
      const refused = await t.call(path, { headers: { "Accept-Encoding": "gzip;q=0" } });
      assert.equal(refused.headers.get("content-encoding"), null);
      await refused.body?.cancel();
      const head = await t.call(path, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get("etag"), etag);
      await head.body?.cancel();
    }
  } finally {
    t.close();
  }
});

Deno.test("demo - every demo page embeds widget.js async with the demo key, under a strict CSP", async () => {
  const t = await startApp();
  try {
    const redirect = await t.call("/demo");
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.get("location"), "/demo/");
    await redirect.body?.cancel();
    const { publicKey } = (await t.kv.get<{ publicKey: string }>(["config", "demo"])).value ??
      { publicKey: "" };
    let key = publicKey;
    for (const page of DEMO_PAGES) {
      const res = await t.call("/demo" + page.url);
      const html = await res.text();
      assert.equal(res.status, 200, page.url);
      assert.match(res.headers.get("content-type")!, /^text\/html/);
      const csp = res.headers.get("content-security-policy")!;
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /style-src 'self'(;|$)/);
      assert.doesNotMatch(html, /<script>|<style|style="| on[a-z]+="/i);
      const tag =
        /<script async src="\/widget\.js" data-key="(pk_\w+)" data-results-page="\/demo\/search-results" data-live="true"/
          .exec(html);
      assert.ok(tag, `widget.js tag on ${page.url}`);
      key ||= tag[1];
      assert.equal(tag[1], key);
    }
    const stored = (await t.kv.get<{ publicKey: string }>(["config", "demo"])).value!;
    assert.equal(stored.publicKey, key);

    const results = await (await t.call("/demo/search-results")).text();
    assert.match(results, /<script async src="\/widget\.js" data-key="pk_\w+"/);
    assert.match(
      results,
      new RegExp(`<script defer src="/results\\.js" data-key="${key}" data-summary="true"`),
    );
    assert.match(results, /data-site-search-results/);

    const missing = await t.call("/demo/no-such-page");
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /Page not found/);
    const css = await t.call("/demo/demo.css");
    assert.match(css.headers.get("content-type")!, /^text\/css/);
    assert.match(await css.text(), /--sitesearch-accent/);
  } finally {
    t.close();
  }
});

Deno.test("demo - the demo key searches the demo pages", async () => {
  const t = await startApp();
  try {
    const html = await (await t.call("/demo/")).text();
    const key = /data-key="(pk_\w+)"/.exec(html)![1];
    const res = await t.call(`/api/search?key=${key}&q=decaf`);
    const body = await res.json();
    assert.equal(res.status, 200);
    assert.ok(body.meta.found > 0);
    const site = await (await t.call(`/api/site?key=${key}`)).json();
    assert.equal(site.aiSummaries, true);
    assert.equal(site.followups, true);
  } finally {
    t.close();
  }
});
