/**
 * The service's own pages in both modes: the local demo links its demo site; production mode
 * (no demo served) links nothing that would 404, and the results page without a key says how to
 * give one instead of showing demo results.
 */
import assert from "node:assert/strict";
import { ensureDemoSite } from "../../lib/demo/site.ts";
import { admin, OPERATOR, putPages, startApp, type TestApp } from "../helpers.ts";

const ORIGIN = "http://127.0.0.1";

async function page(t: TestApp, path: string, cookie?: string) {
  const res = await t.call(path, { headers: cookie ? { Cookie: cookie } : {} });
  return { status: res.status, html: await res.text() };
}

async function signIn(t: TestApp, key: string) {
  const res = await t.call("/dashboard/session", {
    method: "POST",
    headers: { Origin: ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ key }),
    redirect: "manual",
  });
  await res.body?.cancel();
  return res.headers.get("set-cookie")!.split(";")[0];
}

/** The same-origin links of a page (paths, without fragments). */
const links = (
  html: string,
) => [
  ...new Set(Array.from(html.matchAll(/href="(\/[^"#]*)/g), (m) => m[1].replaceAll("&amp;", "&"))),
];

Deno.test("pages - production mode links no demo, and every link of its pages answers", async () => {
  const t = await startApp({ demo: false });
  try {
    const created = await t.call(
      "/api/admin/sites",
      admin(OPERATOR, { name: "Zephyr Kettles", plan: "basic", domain: "kettles.example" }),
    );
    const body = await created.json();
    const site = { id: body.site.id, publicKey: body.publicKey, adminKey: body.adminKey };
    await putPages(t, site, [{ url: "/kettles", title: "Kettles", body: "Gooseneck kettles." }]);
    const owner = await signIn(t, site.adminKey);
    const operator = await signIn(t, OPERATOR);
    const pages = [
      await page(t, "/"),
      await page(t, "/docs/api"),
      await page(t, "/dashboard"),
      await page(t, "/dashboard", owner),
      await page(t, "/dashboard", operator),
      await page(t, `/search-results?key=${site.publicKey}&q=kettles`),
    ];
    const seen = new Set<string>();
    for (const { html } of pages) {
      assert.ok(!/href="\/demo/.test(html), "no link to the demo site");
      // The owner's own results page carries the site's key; a keyless one shows the demo's.
      assert.ok(
        !/href="\/search-results(?:"|\?(?!key=pk_))/.test(html),
        "no link to keyless demo results",
      );
      for (const href of links(html)) seen.add(href);
    }
    assert.ok(seen.has("/dashboard") && seen.has("/docs/api"));
    for (const href of seen) {
      const res = await t.call(href);
      await res.body?.cancel();
      assert.notEqual(res.status, 404, href);
    }
    const demo = await t.call("/demo/");
    assert.equal(demo.status, 404);
    await demo.body?.cancel();
    assert.match(pages[5].html, /Gooseneck/, "a given key searches as ever");
  } finally {
    t.close();
  }
});

Deno.test("pages - production mode's results page without a key says to add ?key=, and searches nothing", async () => {
  const t = await startApp({ demo: false });
  try {
    const res = await t.call("/search-results?q=shipping");
    assert.equal(res.status, 401);
    assert.match(res.headers.get("content-security-policy") ?? "", /script-src 'self'/);
    const html = await res.text();
    assert.match(html, /Add the site's public search key to the address/);
    assert.ok(html.includes("/search-results?key=pk_YOUR_PUBLIC_KEY&amp;q="));
    assert.ok(!html.includes("data-island"), "no results, no search box, no JavaScript");
    assert.equal((await t.kv.get(["config", "demo"])).value, null, "no demo site was made");
  } finally {
    t.close();
  }
});

Deno.test("pages - the local demo links its demo site and keyless results from the landing page and nav", async () => {
  const t = await startApp();
  try {
    await ensureDemoSite(t.services); // as main.ts does in demo mode
    const { html } = await page(t, "/");
    const nav = /<nav aria-label="Main">(.*?)<\/nav>/s.exec(html)![1];
    for (const href of ["/demo/", "/search-results", "/dashboard", "/docs/api"]) {
      assert.ok(nav.includes(`href="${href}"`), `nav: ${href}`);
    }
    assert.ok(html.includes(`href="/search-results?q=shipping"`));
    const res = await t.call("/search-results?q=shipping");
    assert.equal(res.status, 200, "the demo site's key is used");
    await res.body?.cancel();
  } finally {
    t.close();
  }
});
