import assert from "node:assert/strict";
import { MAX_ROBOTS_BYTES, parseRobots, robotsForStatus } from "../../lib/crawl/robots.ts";

const BOT = "SiteSearchBot";

Deno.test("robots - maps fetch statuses to parse, allow-all and disallow-all", () => {
  assert.equal(robotsForStatus(200), "parse");
  assert.equal(robotsForStatus(204), "parse");
  for (const s of [400, 401, 403, 404, 410]) assert.equal(robotsForStatus(s), "allow_all", `${s}`);
  for (const s of [500, 502, 503, 0, 429]) assert.equal(robotsForStatus(s), "disallow_all", `${s}`);
  // Left over after too many redirects: unavailable, like a 4xx.
  assert.equal(robotsForStatus(301), "allow_all");
});

Deno.test("robots - uses the group naming the product token case-insensitively, else *", () => {
  const text = `
User-agent: *
Disallow: /

User-agent: sitesearchbot
Disallow: /private
`;
  const ours = parseRobots(text, BOT);
  assert.equal(ours.isAllowed("/"), true);
  assert.equal(ours.isAllowed("/private/x"), false);
  const other = parseRobots(text, "OtherBot");
  assert.equal(other.isAllowed("/"), false);
});

Deno.test("robots - matches a user-agent line by its product token, ignoring a version", () => {
  const text = "User-agent: SiteSearchBot/2.1 (+https://example.com)\nDisallow: /a\n";
  assert.equal(parseRobots(text, BOT).isAllowed("/a"), false);
  assert.equal(parseRobots(text, "SiteSearchBot/1.0").isAllowed("/a"), false);
  // A different token that merely shares a prefix is not us.
  assert.equal(parseRobots("User-agent: SiteSearch\nDisallow: /\n", BOT).isAllowed("/a"), true);
  assert.equal(parseRobots("User-agent: SiteSearchBotX\nDisallow: /\n", BOT).isAllowed("/a"), true);
});

Deno.test("robots - allows everything when no group matches", () => {
  const r = parseRobots("User-agent: OtherBot\nDisallow: /\n", BOT);
  assert.equal(r.isAllowed("/anything"), true);
  assert.equal(parseRobots("", BOT).isAllowed("/x"), true);
});

Deno.test("robots - merges every group for the same agent, and consecutive user-agent lines", () => {
  const text = `
User-agent: SiteSearchBot
Disallow: /a

User-agent: *
Disallow: /c

User-agent: OtherBot
User-agent: sitesearchbot
Disallow: /b
`;
  const r = parseRobots(text, BOT);
  assert.equal(r.isAllowed("/a"), false);
  assert.equal(r.isAllowed("/b"), false);
  assert.equal(r.isAllowed("/c"), true);
  assert.equal(parseRobots(text, "OtherBot").isAllowed("/b"), false);
  assert.equal(parseRobots(text, "OtherBot").isAllowed("/a"), true);
});

Deno.test("robots - lets the longest matching rule win, and Allow win a tie", () => {
  const text = `
User-agent: *
Disallow: /shop
Allow: /shop/public
Disallow: /shop/public/secret
Allow: /page
Disallow: /page
`;
  const r = parseRobots(text, BOT);
  assert.equal(r.isAllowed("/shop/cart"), false);
  assert.equal(r.isAllowed("/shop/public/item"), true);
  assert.equal(r.isAllowed("/shop/public/secret/1"), false);
  assert.equal(r.isAllowed("/page"), true);
  assert.equal(r.isAllowed("/other"), true);
});

Deno.test("robots - supports * wildcards and $ end anchors", () => {
  const text = `
User-agent: *
Disallow: /*.pdf$
Disallow: /tmp*/cache
Disallow: /exact$
Disallow: /*sessionid=
`;
  const r = parseRobots(text, BOT);
  assert.equal(r.isAllowed("/docs/a.pdf"), false);
  assert.equal(r.isAllowed("/docs/a.pdf?x=1"), true);
  assert.equal(r.isAllowed("/docs/a.pdfx"), true);
  assert.equal(r.isAllowed("/tmp/cache"), false);
  assert.equal(r.isAllowed("/tmp123/x/cache/y"), false);
  assert.equal(r.isAllowed("/tmp/other"), true);
  assert.equal(r.isAllowed("/exact"), false);
  assert.equal(r.isAllowed("/exact/more"), true);
  assert.equal(r.isAllowed("/list?page=2&sessionid=9"), false);
  assert.equal(r.isAllowed("/list?sessionid=9"), false);
  assert.equal(r.isAllowed("/list?page=2"), true);
});

Deno.test("robots - matches many wildcards against long paths without blowing up", () => {
  const r = parseRobots(`User-agent: *\nDisallow: /${"*a".repeat(50)}*b$\n`, BOT);
  const start = performance.now();
  assert.equal(r.isAllowed(`/${"a".repeat(5_000)}`), true);
  assert.ok(performance.now() - start < 2_000);
});

Deno.test("robots - compares paths after percent-encoding normalisation", () => {
  const text = `
User-agent: *
Disallow: /foo/bar/ツ
Disallow: /%62%61%7A
Disallow: /a%2fb
Disallow: /q?x=1
`;
  const r = parseRobots(text, BOT);
  assert.equal(r.isAllowed("/foo/bar/%E3%83%84"), false);
  assert.equal(r.isAllowed("/foo/bar/%e3%83%84"), false);
  assert.equal(r.isAllowed("/foo/bar/ツ"), false);
  assert.equal(r.isAllowed("/baz"), false);
  assert.equal(r.isAllowed("/%62az"), false);
  // An encoded reserved character stays distinct from the character itself.
  assert.equal(r.isAllowed("/a%2Fb"), false);
  assert.equal(r.isAllowed("/a/b"), true);
  assert.equal(r.isAllowed("/q?x=1&y=2"), false);
});

Deno.test("robots - treats an empty Disallow as allowing everything", () => {
  const r = parseRobots("User-agent: *\nDisallow:\n", BOT);
  assert.equal(r.isAllowed("/"), true);
  assert.equal(r.isAllowed("/x"), true);
});

Deno.test("robots - always allows /robots.txt itself", () => {
  const r = parseRobots("User-agent: *\nDisallow: /\n", BOT);
  assert.equal(r.isAllowed("/robots.txt"), true);
  assert.equal(r.isAllowed("/"), false);
  assert.equal(r.isAllowed("/robots.txt.bak"), false);
});

Deno.test("robots - ignores comments, blank lines, odd spacing, CRLF and unknown lines", () => {
  const text = "\uFEFF# site rules\r\n" +
    "  USER-AGENT :  *   # everyone\r\n" +
    "Foo: bar\r\n" +
    "disallow:/private # keep out\r\n" +
    "\r\n" +
    "Disallow: /#all\r\n";
  const r = parseRobots(text, BOT);
  assert.equal(r.isAllowed("/private/1"), false);
  assert.equal(r.isAllowed("/public"), false); // "/#all" is "/" followed by a comment
});

Deno.test("robots - ignores rules that come before any user-agent line", () => {
  const r = parseRobots("Disallow: /\nUser-agent: *\nDisallow: /x\n", BOT);
  assert.equal(r.isAllowed("/"), true);
  assert.equal(r.isAllowed("/x"), false);
});

Deno.test("robots - reads the crawl-delay of the matched group", () => {
  const text =
    "User-agent: *\nCrawl-delay: 10\n\nUser-agent: SiteSearchBot\nCrawl-delay: 2.5\nDisallow:\n";
  assert.equal(parseRobots(text, BOT).crawlDelay, 2.5);
  assert.equal(parseRobots(text, "OtherBot").crawlDelay, 10);
  assert.equal(parseRobots("User-agent: *\nCrawl-delay: soon\n", BOT).crawlDelay, null);
  assert.equal(parseRobots("User-agent: *\nDisallow: /\n", BOT).crawlDelay, null);
});

Deno.test("robots - collects every sitemap line wherever it appears", () => {
  const text = `Sitemap: https://example.com/sitemap.xml
User-agent: OtherBot
Sitemap: https://example.com/news.xml.gz
Disallow: /
Sitemap: https://example.com/sitemap.xml
`;
  const r = parseRobots(text, BOT);
  assert.deepEqual(r.sitemaps, [
    "https://example.com/sitemap.xml",
    "https://example.com/news.xml.gz",
  ]);
  // A sitemap line between user-agent lines does not split the group.
  const t2 =
    "User-agent: OtherBot\nSitemap: https://example.com/s.xml\nUser-agent: SiteSearchBot\nDisallow: /\n";
  assert.equal(parseRobots(t2, BOT).isAllowed("/x"), false);
});

Deno.test("robots - stops parsing at 500 KiB", () => {
  const filler = `# ${"x".repeat(1_000)}\n`;
  const head = "User-agent: *\nDisallow: /early\n";
  const padding = filler.repeat(Math.ceil(MAX_ROBOTS_BYTES / filler.length));
  const r = parseRobots(`${head}${padding}Disallow: /late\n`, BOT);
  assert.equal(r.isAllowed("/early"), false);
  assert.equal(r.isAllowed("/late"), true);
  // Just under the cap, the last rule still counts.
  const short = filler.repeat(Math.floor((MAX_ROBOTS_BYTES - 200) / filler.length));
  assert.equal(parseRobots(`${head}${short}Disallow: /late\n`, BOT).isAllowed("/late"), false);
});
