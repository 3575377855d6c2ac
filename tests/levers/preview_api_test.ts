import assert from "node:assert/strict";
import { admin, createSite, manualClock, putPages, search, startApp } from "../helpers.ts";
import { lever, SHOP, urls } from "./helpers.ts";

Deno.test("preview api - a query's results now and with unsaved lists, checked like a save, nothing stored", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await putPages(t, site, SHOP);
  const preview = async (body: unknown) => {
    const res = await t.call(
      `/api/admin/sites/${site.id}/levers/preview`,
      admin(site.adminKey, body),
    );
    return { status: res.status, body: await res.json() };
  };
  const r = await preview({
    q: "jumper",
    synonyms: [{ words: ["jumper", "hoodies"] }],
    curations: [{ query: "jumper", pin: ["/contact"] }],
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.before, { found: 0, results: [] });
  assert.deepEqual(r.body.after.results.map((x: { url: string }) => x.url.split("#")[0]), [
    "/contact",
    "/hoodies",
  ]);
  assert.equal(r.body.after.results[0].pinned, true);
  assert.equal((await search(t, site.publicKey, "q=jumper")).body.meta.found, 0, "nothing stored");
  assert.deepEqual((await lever(t, site, "synonyms")).body.synonyms, []);
  // A list left out is taken as stored.
  await lever(t, site, "synonyms", { synonyms: [{ words: ["jumper", "hoodies"] }] });
  const stored = await preview({ q: "jumper", curations: [] });
  assert.deepEqual(stored.body.after.results.map((x: { url: string }) => x.url), ["/hoodies"]);
  const cases: [unknown, string][] = [
    [
      { q: "jumper", synonyms: [{ words: ["a", "one two three four five"] }] },
      "synonyms[0].words[1]",
    ],
    [{ q: "jumper", curations: [{ query: "x", pin: ["nope"] }] }, "curations[0].pin[0]"],
    [{ q: "" }, "q"],
    [{ q: "x".repeat(201) }, "q"],
    [{ synonyms: [] }, "q"],
    ["jumper", "body"],
  ];
  for (const [body, param] of cases) {
    const bad = await preview(body);
    assert.equal(bad.status, 400, JSON.stringify(body));
    assert.equal(bad.body.error.param, param);
  }
  t.close();
});

Deno.test("levers - a visitor's search never fails when the levers cannot be read: the last ones read hold", async () => {
  const clock = manualClock();
  const t = await startApp({ clock });
  const site = await createSite(t, "pro");
  await putPages(t, site, SHOP);
  await lever(t, site, "synonyms", { synonyms: [{ words: ["jumper", "hoodies"] }] });
  await lever(t, site, "curations", { curations: [{ query: "refund", hide: ["/old/refunds"] }] });
  t.services.levers.store.marked = () => Promise.reject(new Error("KV is down"));
  clock.advance(60_000);
  const r = await search(t, site.publicKey, "q=jumper");
  assert.equal(r.status, 200);
  assert.deepEqual(urls(r.body), ["/hoodies"]);
  assert.deepEqual(urls((await search(t, site.publicKey, "q=refund")).body), ["/support/refunds"]);
  t.close();
});

Deno.test("preview api - the names the site's URLs give its pages hold in the preview as in searches, beside unsaved synonyms", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await putPages(t, site, SHOP);
  // As a crawl publishes it: "/sweatshirts" redirected to "/hoodies".
  await t.services.levers.putNames(site.id, [
    {
      words: ["hoodies", "sweatshirts"],
      kind: "redirect",
      seen: 1,
      urls: ["/sweatshirts", "/hoodies"],
    },
  ]);
  assert.deepEqual(urls((await search(t, site.publicKey, "q=sweatshirts")).body), ["/hoodies"]);
  const res = await t.call(
    `/api/admin/sites/${site.id}/levers/preview`,
    admin(site.adminKey, { q: "sweatshirts", synonyms: [{ words: ["jumper", "hoodies"] }] }),
  );
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  const shown = (r: { results: { url: string }[] }) => r.results.map((x) => x.url.split("#")[0]);
  assert.deepEqual(shown(body.before), ["/hoodies"]);
  assert.deepEqual(shown(body.after), ["/hoodies"], "an unsaved synonym list keeps the names");
  t.close();
});

Deno.test("preview api - a site gets 60 previews a minute, then 429 PREVIEW_RATE_LIMIT_EXCEEDED; other sites are untouched", async () => {
  const clock = manualClock();
  const t = await startApp({ clock });
  const [a, b] = [await createSite(t, "pro"), await createSite(t, "pro")];
  await putPages(t, a, SHOP);
  const preview = async (site: typeof a) => {
    const res = await t.call(
      `/api/admin/sites/${site.id}/levers/preview`,
      admin(site.adminKey, { q: "jumper", synonyms: [{ words: ["jumper", "hoodies"] }] }),
    );
    return { status: res.status, headers: res.headers, body: await res.json() };
  };
  for (let i = 0; i < 60; i++) assert.equal((await preview(a)).status, 200, `preview ${i + 1}`);
  const over = await preview(a);
  assert.equal(over.status, 429, JSON.stringify(over.body));
  assert.equal(over.body.error.code, "PREVIEW_RATE_LIMIT_EXCEEDED");
  assert.equal(over.body.error.type, "rate_limit_error");
  assert.ok(Number(over.headers.get("Retry-After")) > 0);
  assert.equal((await preview(b)).status, 200, "another site has its own minute");
  clock.advance(61_000);
  assert.equal((await preview(a)).status, 200, "the next minute");
  t.close();
});
