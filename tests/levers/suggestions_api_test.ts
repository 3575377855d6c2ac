import assert from "node:assert/strict";
import {
  admin,
  createSite,
  manualClock,
  putPages,
  search,
  startApp,
  type TestApp,
  type TestSite,
} from "../helpers.ts";
import { lever, SHOP, urls } from "./helpers.ts";

/** Results a search showed: their `click` tokens by URL. */
type Shown = Map<string, string>;
const shown = (body: { results: { url: string; click: string }[] }): Shown =>
  new Map(body.results.map((r) => [r.url, r.click]));

/** A click on a result the search showed (its token sent back, as the scripts do). */
async function click(
  t: TestApp,
  site: TestSite,
  event: { query: string; position: number; url: string },
  from: Shown,
) {
  const token = from.get(event.url);
  assert.ok(token, `${event.url} was shown for ${event.query}`);
  const res = await t.call(`/api/events?key=${site.publicKey}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ type: "click", ...event, click: token }),
  });
  assert.equal(res.status, 204);
  await res.body?.cancel();
}

async function suggestions(t: TestApp, site: TestSite, params = "") {
  const res = await t.call(
    `/api/admin/sites/${site.id}/suggestions${params}`,
    admin(site.adminKey),
  );
  return { status: res.status, body: await res.json() };
}

/** A shop whose visitors search "hooodie" (nothing found) and click a low result for "money back". */
async function shopWithTraffic(clock = manualClock()) {
  const t = await startApp({ clock });
  const site = await createSite(t, "pro");
  // Pages that name "money back" in their titles, so that the refunds page is shown low for it.
  const offers = ["Guarantee", "Gift cards", "Price match", "Loyalty"].map((name) => ({
    url: `/offers/${name.toLowerCase().replace(" ", "-")}`,
    title: `${name}: money back`,
    body: `${name} with money back on every order.`,
  }));
  await putPages(t, site, [...SHOP, ...offers]);
  for (let i = 0; i < 3; i++) await search(t, site.publicKey, "q=hooodie");
  // Read as "shirt" by the search itself, which finds the page "t-shirts" would: no fix needed.
  for (let i = 0; i < 4; i++) await search(t, site.publicKey, "q=tshirt");
  let results: Shown = new Map();
  for (let i = 0; i < 5; i++) {
    results = shown((await search(t, site.publicKey, "q=Money%20back")).body);
  }
  const position = [...results.keys()].indexOf("/support/refunds") + 1;
  assert.equal(position, 5, "the refunds page is shown fifth");
  const low = { query: "money back", position, url: "/support/refunds" };
  for (let i = 0; i < 4; i++) await click(t, site, low, results);
  const first = [...results.keys()][0];
  await click(t, site, { query: "money back", position: 1, url: first }, results);
  // One search is not frequent enough for a suggestion.
  await search(t, site.publicKey, "q=sweter");
  return { t, site };
}

Deno.test("suggestions api - a synonym for a query that found nothing and a pin for a query whose clicks go to a low page, largest searches first", async () => {
  const { t, site } = await shopWithTraffic();
  const r = await suggestions(t, site);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const [pin, synonym, ...rest] = r.body.suggestions;
  assert.deepEqual(rest, []);
  assert.equal(pin.kind, "pin");
  assert.equal(pin.query, "money back");
  assert.equal(pin.url, "/support/refunds");
  assert.equal(pin.searches, 5);
  assert.match(
    pin.why,
    /^4 of 5 clicks after searching “money back” went to \/support\/refunds, shown at position 5 on average\.$/,
  );
  assert.equal(synonym.kind, "synonym");
  assert.equal(synonym.query, "hooodie");
  assert.equal(synonym.to, "hoodies");
  assert.equal(synonym.searches, 3);
  // Two letters away: more than the search's own typo correction reaches.
  assert.match(
    synonym.why,
    /^3 searches for “hooodie” found nothing; “hoodies” is two letters away and in the titles or headings of 1 page, and “hoodies” finds 1 page\.$/,
  );
  assert.deepEqual(synonym.apply, { word: "hooodie", means: ["hoodies"] });
  t.close();
});

Deno.test("suggestions api - applying a suggestion changes the query's first results and the suggestion goes away", async () => {
  const { t, site } = await shopWithTraffic();
  const [pin, synonym] = (await suggestions(t, site)).body.suggestions;
  await lever(t, site, "synonyms", { synonyms: [synonym.apply] });
  await lever(t, site, "curations", { curations: [pin.apply] });
  assert.deepEqual(urls((await search(t, site.publicKey, "q=hooodie")).body), ["/hoodies"]);
  const money = await search(t, site.publicKey, "q=money%20back");
  assert.equal(urls(money.body)[0], "/support/refunds");
  assert.equal(money.body.results[0].pinned, true);
  assert.deepEqual((await suggestions(t, site)).body.suggestions, []);
  t.close();
});

Deno.test("suggestions api - a dismissed suggestion does not come back; days and dismissals are validated", async () => {
  const { t, site } = await shopWithTraffic();
  const [pin] = (await suggestions(t, site)).body.suggestions;
  const res = await t.call(
    `/api/admin/sites/${site.id}/suggestions/dismissed`,
    admin(site.adminKey, {
      kind: "pin",
      query: pin.query,
      url: pin.url,
    }),
  );
  assert.equal(res.status, 204);
  await res.body?.cancel();
  const left = (await suggestions(t, site)).body.suggestions;
  assert.deepEqual(left.map((s: { kind: string }) => s.kind), ["synonym"]);
  for (const days of ["0", "91", "x"]) {
    const r = await suggestions(t, site, `?days=${days}`);
    assert.equal(r.status, 400);
    assert.equal(r.body.error.param, "days");
  }
  const bad = await t.call(
    `/api/admin/sites/${site.id}/suggestions/dismissed`,
    admin(site.adminKey, {
      kind: "boost",
      query: "x",
    }),
  );
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error.param, "kind");
  t.close();
});

Deno.test("suggestions api - searches older than the window are left out", async () => {
  const clock = manualClock();
  const { t, site } = await shopWithTraffic(clock);
  clock.advance(40 * 86_400_000);
  assert.deepEqual((await suggestions(t, site)).body.suggestions, []);
  assert.equal((await suggestions(t, site, "?days=90")).body.suggestions.length, 2);
  t.close();
});
