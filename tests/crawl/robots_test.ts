import assert from "node:assert/strict";
import {
  MAX_ROBOTS_BYTES,
  parseRobots,
  parseRobotsInSlices,
  robotsForStatus,
} from "../../lib/crawl/robots.ts";
import { pick as pickFrom, seeded } from "../fixtures/seeded.ts";

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

Deno.test("robots - follows the examples of RFC 9309 section 5", () => {
  const simple = `
User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
`;
  const foo = parseRobots(simple, "FooBot");
  assert.equal(foo.isAllowed("/example/page.html"), true);
  assert.equal(foo.isAllowed("/example/allowed.gif"), true);
  assert.equal(foo.isAllowed("/example/other.html"), false);
  assert.equal(foo.isAllowed("/"), false);
  for (const bot of ["barbot", "bazbot"]) {
    assert.equal(parseRobots(simple, bot).isAllowed("/example/page.html"), false, bot);
    assert.equal(parseRobots(simple, bot).isAllowed("/example/other.html"), true, bot);
  }
  // A group with no rules allows everything, and still shadows the * group.
  assert.equal(parseRobots(simple, "quxbot").isAllowed("/example/x.gif"), true);
  const other = parseRobots(simple, BOT);
  assert.equal(other.isAllowed("/images/a.gif"), false);
  assert.equal(other.isAllowed("/images/a.gif?v=2"), true);
  assert.equal(other.isAllowed("/example/"), false);
  assert.equal(other.isAllowed("/publications/"), true);

  const longest =
    "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n";
  const r = parseRobots(longest, "foobot");
  assert.equal(r.isAllowed("/example/page/"), true);
  assert.equal(r.isAllowed("/example/page/ok.gif"), true);
  assert.equal(r.isAllowed("/example/page/disallowed.gif"), false);
});

Deno.test("robots - matches the RFC 9309 2.2.2 encodings of a path", () => {
  const cases: [string, string][] = [
    ["/foo/bar?baz=quz", "/foo/bar?baz=quz"],
    ["/foo/bar/ツ", "/foo/bar/%E3%83%84"],
    ["/foo/bar/%E3%83%84", "/foo/bar/ツ"],
    ["/foo/bar/%62%61%7A", "/foo/bar/baz"],
    ["/foo/bar/baz", "/foo/bar/%62%61%7a"],
  ];
  for (const [rule, path] of cases) {
    const r = parseRobots(`User-agent: *\nDisallow: ${rule}$\n`, BOT);
    assert.equal(r.isAllowed(path), false, `${rule} vs ${path}`);
    assert.equal(r.isAllowed(`${path}x`), true, `${rule}$ vs ${path}x`);
  }
});

Deno.test("robots - matches the usual path examples for /, /$, /fish, /fish*, /fish/ and *.php", () => {
  const table: [string, string[], string[]][] = [
    ["/", ["/", "/page.htm", "/a/b?c"], []],
    ["/*", ["/", "/page.htm", "/a/b?c"], []],
    ["/$", ["/"], ["/page.htm", "/?q=1"]],
    [
      "/fish",
      [
        "/fish",
        "/fish.html",
        "/fish/salmon.html",
        "/fishheads",
        "/fishheads/yummy.html",
        "/fish.php?id=anything",
      ],
      ["/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"],
    ],
    [
      "/fish*",
      ["/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fish.php?id=anything"],
      ["/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"],
    ],
    [
      "/fish/",
      ["/fish/", "/fish/?id=anything", "/fish/salmon.htm"],
      ["/fish", "/fish.html", "/animals/fish/", "/Fish/Salmon.asp"],
    ],
    [
      "/*.php",
      [
        "/index.php",
        "/filename.php",
        "/folder/filename.php",
        "/folder/filename.php?parameters",
        "/folder/any.php.file.html",
        "/filename.php/",
      ],
      ["/", "/windows.PHP"],
    ],
    [
      "/*.php$",
      ["/filename.php", "/folder/filename.php", "/a.php.php"],
      ["/filename.php?parameters", "/filename.php/", "/filename.php5", "/windows.PHP"],
    ],
    ["/fish*.php", ["/fish.php", "/fishheads/catfish.php?parameters"], ["/Fish.PHP", "/fish.ph"]],
    ["/a**b", ["/ab", "/a/x/b"], ["/ba"]],
    ["/*$", ["/", "/any/thing"], []],
    // Only a final $ anchors; elsewhere it is a character like any other.
    ["/a$b", ["/a$b", "/a$bc"], ["/ab", "/a"]],
  ];
  for (const [pattern, matching, other] of table) {
    const r = parseRobots(`User-agent: *\nDisallow: ${pattern}\n`, BOT);
    for (const p of matching) assert.equal(r.isAllowed(p), false, `${pattern} should match ${p}`);
    for (const p of other) assert.equal(r.isAllowed(p), true, `${pattern} should not match ${p}`);
  }
});

Deno.test("robots - picks the longest match across literal and wildcard rules, Allow on a tie", () => {
  const cases: [string, string, boolean][] = [
    ["Allow: /p\nDisallow: /", "/page", true],
    ["Allow: /folder\nDisallow: /folder", "/folder/page", true],
    ["Allow: /page\nDisallow: /*.htm", "/page.htm", false],
    ["Allow: /$\nDisallow: /", "/", true],
    ["Allow: /$\nDisallow: /", "/page.htm", false],
    // Lengths count the pattern as written, stars included, so a tie goes to Allow.
    ["Disallow: /a*c\nAllow: /abc", "/abc", true],
    ["Allow: /a*c\nDisallow: /abc", "/abc", true],
    ["Disallow: /a*cd\nAllow: /abc", "/abcd", false],
    ["Disallow: /*.pdf$\nAllow: /docs/*.pdf$", "/docs/a.pdf", true],
    ["Disallow: /*.pdf$\nAllow: /docs/*.pdf$", "/x/a.pdf", false],
    // Repeated stars count once, as one star.
    ["Disallow: /a***c\nAllow: /abc", "/abc", true],
    // The same pattern under both verdicts is a tie.
    ["Disallow: /*x\nAllow: /*x\nDisallow: /*x", "/ax", true],
  ];
  for (const [rules, path, allowed] of cases) {
    const r = parseRobots(`User-agent: *\n${rules}\n`, BOT);
    assert.equal(r.isAllowed(path), allowed, `${JSON.stringify(rules)} on ${path}`);
  }
});

/** The plain matcher RFC 9309 describes, O(path × pattern) a rule: the reference to agree with. */
function referenceAllows(rules: [boolean, string][], path: string): boolean {
  // The path positions the pattern read so far can end at.
  const matches = (pattern: string): boolean => {
    let positions = [0];
    for (let j = 0; j < pattern.length; j++) {
      const c = pattern[j];
      if (c === "$" && j === pattern.length - 1) return positions.includes(path.length);
      const next: number[] = [];
      if (c === "*") {
        for (let p = positions[0]; p <= path.length; p++) next.push(p);
      } else {
        for (const p of positions) if (path[p] === c) next.push(p + 1);
      }
      if (next.length === 0) return false;
      positions = next;
    }
    return true;
  };
  let best: [boolean, string] | null = null;
  for (const [allow, raw] of rules) {
    // An empty path is no rule: `Disallow:` alone disallows nothing (the 1994 text says so).
    if (raw === "") continue;
    const pattern = raw.replace(/\*+/g, "*");
    if (!matches(pattern)) continue;
    const longer = !best || pattern.length > best[1].length;
    if (longer || (pattern.length === best![1].length && allow && !best![0])) {
      best = [allow, pattern];
    }
  }
  return best ? best[0] : true;
}

Deno.test("robots - agrees with the plain matcher on random rules, with and without indexing the path", () => {
  const rand = seeded(20240917);
  const pick = <T>(xs: T[]): T => pickFrom(rand, xs);
  const count = (max: number) => pick(Array.from({ length: max + 1 }, (_, i) => i));
  const tokens = ["a", "b", "a", "b", "ab", "/", "?", ".", "*", "*", "$"];
  // Never-matching pieces that use up the direct-search budget, so later pieces go through the
  // index of the path.
  const padding = Array.from({ length: 80 }, (_, i) => [false, `*~~~~~${i}`] as [boolean, string]);
  for (let round = 0; round < 2_000; round++) {
    const rules: [boolean, string][] = [];
    for (let i = count(12); i >= 0; i--) {
      let pattern = pick(["/", "/", "/", ""]);
      for (let j = count(10); j > 0; j--) pattern += pick(tokens);
      rules.push([pick([true, false]), pattern]);
    }
    const padded = round % 2 === 1;
    const all = padded ? [...padding, ...rules] : rules;
    const text = `User-agent: *\n${
      all.map(([a, p]) => `${a ? "Allow" : "Disallow"}: ${p}`).join("\n")
    }`;
    const robots = parseRobots(text, BOT);
    for (let k = 0; k < 10; k++) {
      let path = "/";
      for (let j = count(30); j > 0; j--) path += pick(["a", "b", "a", "b", "/", "?", ".", "$"]);
      if (path === "/robots.txt") continue;
      const expected = referenceAllows(all, path);
      assert.equal(robots.isAllowed(path), expected, `${JSON.stringify(text)} on ${path}`);
    }
  }
});

Deno.test("robots - a file of 20,000 wildcard rules is parsed in slices, to the same verdicts", async () => {
  const text = "User-agent: *\n" +
    Array.from({ length: 20_000 }, (_, i) => `${i % 3 ? "Disallow" : "Allow"}: /*a*b*${i}*$`)
      .join("\n");
  let turns = 0;
  const tick = setInterval(() => turns++, 0);
  const sliced = await parseRobotsInSlices(text, BOT);
  clearInterval(tick);
  const whole = parseRobots(text, BOT);
  for (const path of ["/xaxb1x", "/a/b/3", "/ab19999", "/ab19998", "/plain", "/ab0"]) {
    assert.equal(sliced.isAllowed(path), whole.isAllowed(path), path);
  }
  // The longest pattern that matches decides: 19998 (an Allow, 19998 % 3 is 0), 19999 not.
  assert.equal(sliced.isAllowed("/ab19998"), true);
  assert.equal(sliced.isAllowed("/ab19999"), false);
  assert.ok(turns >= 2, `the event loop turned ${turns} times`);
});
