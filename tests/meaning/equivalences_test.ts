import assert from "node:assert/strict";
import {
  mineEquivalences,
  siteEquivalences,
} from "../../lib/search/engine/analysis/equivalences.ts";

const pairs = (text: string) => mineEquivalences(text).map((e) => e.words.join(" = "));

Deno.test("meaning - an abbreviation defined in the text is mined, long form first or short form first", () => {
  assert.deepEqual(
    pairs(
      "Pages are served through a Content Delivery Network (CDN). " +
        "The TLS (Transport Layer Security) handshake comes first. " +
        "Each record has a Time To Live (TTL) and the Object-Relational Mapper (ORM) maps tables.",
    ),
    [
      "cdn = content delivery network",
      "ttl = time to live",
      "orm = object-relational mapper",
      "tls = transport layer security",
    ],
  );
});

Deno.test("meaning - words in parentheses that do not spell out what precedes them are no abbreviation", () => {
  assert.deepEqual(
    pairs("Our largest model (XL) is new. Foo bar (BAZ) is unrelated. See (PDF)."),
    [],
  );
  assert.deepEqual(pairs("Use the ORM (it is fast) and the API (see below)."), []);
});

Deno.test("meaning - 'also called', 'also known as' and 'aka' give a second name", () => {
  assert.deepEqual(
    pairs(
      "Cold brew, also called cold water extraction, takes twelve hours. " +
        "The moka pot (also known as a stovetop espresso maker) comes from Italy. " +
        "Single sign-on, aka SSO, is on every plan.",
    ),
    [
      "cold brew = cold water extraction",
      "moka pot = stovetop espresso maker",
      "sso = single sign-on",
    ],
  );
});

Deno.test("meaning - a site's equivalences are counted over its pages, most said first, each at most 4 words a side", () => {
  const eq = siteEquivalences([
    "A Content Delivery Network (CDN) caches pages.",
    "Purge the CDN (Content Delivery Network) cache after a release.",
    "Search Engine Optimization (SEO) is not our business.",
    "The International Business Machines Corporation Research Division (IBMCRD) is long.",
  ]);
  assert.deepEqual(eq.map((e) => [e.words.join(" = "), e.seen]), [
    ["cdn = content delivery network", 2],
    ["seo = search engine optimization", 1],
  ]);
  assert.ok(eq.every((e) => e.kind === "abbreviation"));
});

Deno.test("meaning - a very long or hostile text is mined quickly and yields at most 1,000 entries", () => {
  const junk = "((((((( ".repeat(20_000) + "aka ".repeat(20_000) + "A".repeat(50_000);
  const many = Array.from({ length: 3_000 }, (_, i) => {
    const word = (n: number) => String.fromCharCode(97 + (n % 26)) + "x" + (n % 7);
    const a = word(i), b = word(i + 3), c = word(i + 11);
    return `${a} ${b} ${c} (${(a[0] + b[0] + c[0]).toUpperCase()})`;
  }).join(". ");
  const t0 = performance.now();
  mineEquivalences(junk);
  const found = siteEquivalences([many, many]);
  assert.ok(performance.now() - t0 < 2_000, `${(performance.now() - t0).toFixed(0)} ms`);
  assert.ok(found.length <= 1_000);
});

Deno.test("meaning - 'or simply', 'or merely' and 'for short' after a long form give its abbreviation", () => {
  assert.deepEqual(
    pairs(
      "Every page goes out through a Content Delivery Network, or simply CDN, near you. " +
        "We speak of Single Page Applications, or merely SPAs, when one page does it all. " +
        "Keep a Time To Live (TTL for short) on each record.",
    ).sort(),
    ["cdn = content delivery network", "spas = single page applications", "ttl = time to live"],
  );
  // Words after "or simply" that do not spell out what precedes them are no abbreviation.
  assert.deepEqual(pairs("Open the settings page, or simply PRESS the gear."), []);
});
