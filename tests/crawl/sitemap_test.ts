import assert from "node:assert/strict";
import {
  decodeSitemapBody,
  MAX_SITEMAP_BYTES,
  MAX_SITEMAP_ENTRIES,
  parseSitemap,
} from "../../lib/crawl/sitemap.ts";

const gzip = async (data: Uint8Array | string) =>
  new Uint8Array(
    await new Response(
      new Blob([data as BlobPart]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );

const URLSET = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url>
    <loc>
      https://example.com/
    </loc>
    <lastmod>2024-05-01</lastmod>
    <image:image><image:loc>https://example.com/logo.png</image:loc></image:image>
  </url>
  <url><loc>https://example.com/about</loc><changefreq>monthly</changefreq></url>
  <url><loc>   </loc></url>
</urlset>`;

Deno.test("sitemap - reads the locs and lastmods of a urlset, ignoring image locs", async () => {
  assert.deepEqual(await parseSitemap(URLSET), {
    kind: "urlset",
    urls: [
      { loc: "https://example.com/", lastmod: "2024-05-01" },
      { loc: "https://example.com/about" },
    ],
  });
});

Deno.test("sitemap - reads a sitemap index", async () => {
  const xml = `<?xml version="1.0"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://example.com/a.xml</loc><lastmod>2024-01-01T00:00:00Z</lastmod></sitemap>
  <sitemap><loc>https://example.com/b.xml.gz</loc></sitemap>
</sitemapindex>`;
  assert.deepEqual(await parseSitemap(xml), {
    kind: "index",
    urls: [
      { loc: "https://example.com/a.xml", lastmod: "2024-01-01T00:00:00Z" },
      { loc: "https://example.com/b.xml.gz" },
    ],
  });
});

Deno.test("sitemap - accepts a namespace prefix on the sitemap elements", async () => {
  const xml = `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sm:url><sm:loc>https://example.com/p</sm:loc></sm:url></sm:urlset>`;
  assert.deepEqual((await parseSitemap(xml)).urls, [{ loc: "https://example.com/p" }]);
});

Deno.test("sitemap - decodes entities and CDATA in locs", async () => {
  const xml = `<urlset>
  <url><loc>https://example.com/?a=1&amp;b=2&#38;c=3&#x26;d=&apos;4&apos;</loc></url>
  <url><loc><![CDATA[https://example.com/?e=5&f=6]]></loc></url>
</urlset>`;
  assert.deepEqual((await parseSitemap(xml)).urls.map((u) => u.loc), [
    "https://example.com/?a=1&b=2&c=3&d='4'",
    "https://example.com/?e=5&f=6",
  ]);
});

Deno.test("sitemap - keeps at most 50,000 entries", async () => {
  const entry = "<url><loc>https://example.com/p</loc></url>";
  const xml = `<urlset>${entry.repeat(MAX_SITEMAP_ENTRIES + 10)}</urlset>`;
  assert.equal((await parseSitemap(xml)).urls.length, MAX_SITEMAP_ENTRIES);
});

Deno.test("sitemap - refuses a document that is not a sitemap", async () => {
  await assert.rejects(parseSitemap("<html><body>hi</body></html>"), { message: "not_a_sitemap" });
  await assert.rejects(parseSitemap(""), { message: "not_a_sitemap" });
});

Deno.test("sitemap - gunzips a body that starts with the gzip magic bytes", async () => {
  const body = await gzip(URLSET);
  assert.deepEqual([body[0], body[1]], [0x1f, 0x8b]);
  for (
    const [type, url] of [
      ["application/gzip", "https://example.com/sitemap.xml.gz"],
      ["application/octet-stream", "https://example.com/sitemap"],
      [null, "https://example.com/sitemap.xml"],
    ] as const
  ) {
    assert.equal(await decodeSitemapBody(body, type, url), URLSET);
  }
  assert.equal(
    (await parseSitemap(await decodeSitemapBody(body, null, "https://example.com/s.gz"))).urls
      .length,
    2,
  );
});

Deno.test("sitemap - passes plain bodies through, even under a .gz name", async () => {
  const bytes = new TextEncoder().encode(URLSET);
  assert.equal(
    await decodeSitemapBody(bytes, "application/xml", "https://example.com/s.xml"),
    URLSET,
  );
  // Already inflated by Content-Encoding: gzip on the way in.
  assert.equal(
    await decodeSitemapBody(bytes, "application/gzip", "https://example.com/s.xml.gz"),
    URLSET,
  );
  const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]);
  assert.equal(
    await decodeSitemapBody(latin1, "text/xml; charset=ISO-8859-1", "https://example.com/s"),
    "café",
  );
});

Deno.test("sitemap - rejects a body that inflates past 50 MiB", async () => {
  const bomb = await gzip(new Uint8Array(MAX_SITEMAP_BYTES + 1));
  assert.ok(bomb.byteLength < 1024 * 1024);
  await assert.rejects(() => decodeSitemapBody(bomb, null, "https://example.com/s.xml.gz"), {
    message: "too_large",
  });
  await assert.rejects(
    () => decodeSitemapBody(new Uint8Array(MAX_SITEMAP_BYTES + 1), null, "https://example.com/s"),
    { message: "too_large" },
  );
});

Deno.test("sitemap - inflates a body of exactly 50 MiB", async () => {
  const text = await decodeSitemapBody(
    await gzip(new Uint8Array(MAX_SITEMAP_BYTES).fill(0x20)),
    null,
    "https://example.com/s.xml.gz",
  );
  assert.equal(text.length, MAX_SITEMAP_BYTES);
});

Deno.test("sitemap - rejects a corrupt gzip body", async () => {
  const body = await gzip(URLSET);
  await assert.rejects(() =>
    decodeSitemapBody(body.slice(0, 20), null, "https://example.com/s.gz")
  );
});

Deno.test("sitemap - a body nesting past any sitemap's depth is refused at once, however long", async () => {
  // htmlparser2 pays for each open element in proportion to the depth: 40,000 levels took
  // ~170 ms and 15 million would take hours, all on the event loop.
  const deep = "<urlset><url><loc>https://example.com/a</loc></url>" + "<x>".repeat(5_000_000);
  const t = performance.now();
  await assert.rejects(parseSitemap(deep), { message: "not_a_sitemap" });
  assert.ok(performance.now() - t < 1000, `${performance.now() - t} ms`);
  // The extensions' depth (news: urlset > url > news > publication > name) is read.
  const news = `<urlset xmlns:news="n"><url><loc>https://example.com/n</loc><news:news>` +
    `<news:publication><news:name>N</news:name></news:publication></news:news></url></urlset>`;
  assert.deepEqual((await parseSitemap(news)).urls, [{ loc: "https://example.com/n" }]);
});

Deno.test("sitemap - a large sitemap is read in slices: timers still run while it is parsed", async () => {
  const pad = "p".repeat(500); // ~21 MB in all, read in ~0.2-0.5 s
  // One flat string, as a decoded body is (a concatenation would be flattened at the first slice).
  const xml = [
    "<urlset>",
    ...Array.from(
      { length: 40_000 },
      (_, i) => `<url><loc>https://example.com/${pad}${i}</loc></url>`,
    ),
    "</urlset>",
  ].join("\n");
  let longest = 0, last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  const t = performance.now();
  const { urls } = await parseSitemap(xml);
  const took = performance.now() - t;
  clearInterval(tick);
  assert.equal(urls.length, 40_000);
  assert.equal(urls.at(-1)?.loc, `https://example.com/${pad}39999`);
  // The whole read takes far longer than any wait between two timers.
  assert.ok(longest < 100 && longest < took / 3, `longest wait ${longest} ms of ${took} ms`);
});
