import assert from "node:assert/strict";
import { extractPage } from "../../lib/crawl/extract.ts";

const BASE = "https://docs.example.com/guide/intro.html";

/** A page with `head` in <head> and `body` in <body>. */
const page = (head: string, body = "", htmlAttrs = "") =>
  `<!doctype html><html${htmlAttrs}><head>${head}</head><body>${body}</body></html>`;

Deno.test("extract - takes the title from <title>, else the first <h1>, else empty", () => {
  assert.equal(
    extractPage(page("<title>\n  Docs &amp;\tGuides </title>"), BASE).title,
    "Docs & Guides",
  );
  assert.equal(
    extractPage(page("", "<p>x</p><h1>First <em>one</em></h1><h1>Second</h1>"), BASE).title,
    "First one",
  );
  assert.equal(extractPage(page("", "<p>no headings</p>"), BASE).title, "");
  // An icon's <svg><title> is not the page's title.
  const svg = page("", "<svg><title>icon</title></svg><h1>Real</h1>");
  assert.equal(extractPage(svg, BASE).title, "Real");
});

Deno.test("extract - reads the meta description, falling back to og:description", () => {
  const both = page(
    '<meta property="og:description" content="From OG"><meta name="Description" content=" Plain  &quot;one&quot; ">',
  );
  assert.equal(extractPage(both, BASE).description, 'Plain "one"');
  const og = page('<meta property="og:description" content="From OG">');
  assert.equal(extractPage(og, BASE).description, "From OG");
  assert.equal(extractPage(page(""), BASE).description, "");
});

Deno.test("extract - reduces <html lang> to its lowercased primary subtag", () => {
  assert.equal(extractPage(page("", "", ' lang="en-US"'), BASE).lang, "en");
  assert.equal(extractPage(page("", "", ' lang="DE"'), BASE).lang, "de");
  assert.equal(extractPage(page("", "", ' xml:lang="fr_CA"'), BASE).lang, "fr");
  assert.equal(extractPage(page("", "", ' lang=""'), BASE).lang, "");
  assert.equal(extractPage(page(""), BASE).lang, "");
});

Deno.test("extract - reads noindex and nofollow from robots and googlebot metas", () => {
  const flags = (content: string, name = "robots") => {
    const p = extractPage(page(`<meta name="${name}" content="${content}">`), BASE);
    return [p.noindex, p.nofollow];
  };
  assert.deepEqual(flags("noindex"), [true, false]);
  assert.deepEqual(flags("none"), [true, true]);
  assert.deepEqual(flags("NOINDEX, follow"), [true, false]);
  assert.deepEqual(flags("index,nofollow"), [false, true]);
  assert.deepEqual(flags("noindex", "googlebot"), [true, false]);
  assert.deepEqual(flags("index, follow"), [false, false]);
  assert.deepEqual(flags("noindex", "description"), [false, false]);
});

Deno.test("extract - resolves the canonical URL against the page and <base href>", () => {
  const rel = page('<link rel="canonical" href="../start.html#top">');
  assert.equal(extractPage(rel, BASE).canonical, "https://docs.example.com/start.html");
  const based = page('<base href="https://cdn.example.org/v2/"><link rel="canonical" href="page">');
  assert.equal(extractPage(based, BASE).canonical, "https://cdn.example.org/v2/page");
  const relBase = page('<base href="/v3/"><link rel="Canonical" href="x.html">');
  assert.equal(extractPage(relBase, BASE).canonical, "https://docs.example.com/v3/x.html");
  assert.equal(extractPage(page(""), BASE).canonical, null);
  assert.equal(
    extractPage(page('<link rel="canonical" href="mailto:a@b.c">'), BASE).canonical,
    null,
  );
});

Deno.test("extract - lists absolute http(s) links once each, without fragments", () => {
  const body = `
    <nav><a href="/">Home</a></nav>
    <a href="setup.html#install">Setup</a> <a href="setup.html">Setup again</a>
    <a href="https://other.example.net/x?y=1#z">Other</a>
    <a href="//cdn.example.org/file">Protocol-relative</a>
    <a href="#local">Local</a> <a href="">Empty</a> <a>No href</a>
    <a href="javascript:void(0)">JS</a> <a href="mailto:me@example.com">Mail</a>
    <a href="tel:+123">Call</a> <a href="ftp://files.example.com/">FTP</a>
    <a href="http://[bad">Broken</a> <a rel="nofollow" href="/kept">Kept</a>`;
  assert.deepEqual(extractPage(page("", body), BASE).links, [
    "https://docs.example.com/",
    "https://docs.example.com/guide/setup.html",
    "https://other.example.net/x?y=1",
    "https://cdn.example.org/file",
    "https://docs.example.com/kept",
  ]);
  const based = page('<base href="https://mirror.example.com/a/">', '<a href="b">b</a>');
  assert.deepEqual(extractPage(based, BASE).links, ["https://mirror.example.com/a/b"]);
});

Deno.test("extract - leaves scripts, navigation, hidden and nosnippet content out of the text", () => {
  const body = `
    <header>Site header</header><nav>Menu</nav><div role="navigation">Role nav</div>
    <p>Visible one.</p>
    <script>var secret = 1;</script><style>.x{}</style><noscript>Enable JS</noscript>
    <template><p>Template</p></template><svg><text>Vector</text></svg>
    <div hidden>Hidden attr</div><div aria-hidden="true">Aria hidden</div>
    <div style="color: red; display : none">Display none</div>
    <span style="visibility:hidden">Invisible</span>
    <p data-nosnippet>No snippet</p>
    <form><label>Name</label><input value="Input value"><button>Send</button>
      <select><option>Option</option></select><textarea>Area</textarea></form>
    <iframe>Frame</iframe><aside>Sidebar</aside>
    <div role="banner">Banner</div><div role="contentinfo">Info</div>
    <p>Visible two.</p>
    <footer>Site footer</footer>`;
  assert.equal(
    extractPage(page("<title>T</title>", body), BASE).text,
    "Visible one.\nName\nVisible two.",
  );
});

Deno.test("extract - drops documentation chrome marked by class (DocBook, Sphinx)", () => {
  const body = `
    <div class="navheader"><a href="prev.html">Prev</a></div>
    <div class="related" role="none"><a href="index.html">Index</a></div>
    <a class="skip-link" href="#c">Skip to content</a>
    <ol class="breadcrumb"><li>Docs</li></ol>
    <div class="body"><section id="install"><h1>Install<a class="headerlink" href="#install">¶</a></h1>
      <p>Run it.</p></section></div>
    <div class="sphinxsidebar"><h3>Search</h3></div>
    <div class="navfooter">Next</div>`;
  const p = extractPage(page("", body), BASE);
  assert.equal(p.text, "Install\nRun it.");
  assert.deepEqual(p.sections, [{ heading: "Install", anchor: "install", text: "Run it." }]);
  // Links in the chrome still lead the crawler on.
  assert.ok(p.links.includes("https://docs.example.com/guide/prev.html"));
});

Deno.test("extract - joins inline elements without spaces and breaks lines at blocks", () => {
  const body = `<p><b>Post</b>greSQL is <a href="x">fast</a>,<i>really</i>.</p><p>Next
    paragraph&nbsp;here</p><div>A<br>B</div><ul><li>one</li><li>two</li></ul>
    <table><tr><td>c1</td><td>c2</td></tr></table><h2>Head</h2>tail<pre>line 1
  line 2</pre>`;
  assert.equal(
    extractPage(page("", body), BASE).text,
    "PostgreSQL is fast,really.\nNext paragraph here\nA\nB\none\ntwo\nc1\nc2\nHead\ntail\nline 1\nline 2",
  );
});

Deno.test("extract - prefers <main>, then role=main, then a single <article>, over the body", () => {
  const chrome = "<div>Outside</div>";
  const main = extractPage(
    page("", `${chrome}<main><p>In main</p><aside>Note</aside></main>`),
    BASE,
  );
  assert.equal(main.text, "In main\nNote");
  const role = extractPage(page("", `${chrome}<div role="main"><p>In role</p></div>`), BASE);
  assert.equal(role.text, "In role");
  const one = extractPage(
    page("", `${chrome}<article><header><h1>Post</h1></header><p>Body</p></article>`),
    BASE,
  );
  assert.equal(one.text, "Post\nBody");
  const two = extractPage(page("", `${chrome}<article>One</article><article>Two</article>`), BASE);
  assert.equal(two.text, "Outside\nOne\nTwo");
  // A hidden <main> is not the content.
  const hidden = extractPage(page("", `<main hidden>Old</main><p>Shown</p>`), BASE);
  assert.equal(hidden.text, "Shown");
});

Deno.test("extract - splits the text into sections at headings, with their anchors", () => {
  const html = `<html><body id="docContent">
    <p>Intro text.</p>
    <h1 id="top">Guide</h1><p>Welcome.</p>
    <div class="sect1" id="DDL-BASICS"><div class="titlepage"><h2>Basics</h2></div><p>Tables.</p>
      <h3>No anchor here</h3><p>Still basics.</p></div>
    <a name="legacy"></a><h2>Legacy</h2><p>Old style.</p>
    <h2><span id="inner">Inner</span> id</h2><p>Wiki style.</p>
    <h2>Empty</h2><h2></h2><p>After an empty heading.</p></body></html>`;
  assert.deepEqual(extractPage(html, BASE).sections, [
    { heading: "", anchor: "", text: "Intro text." },
    { heading: "Guide", anchor: "top", text: "Welcome." },
    { heading: "Basics", anchor: "DDL-BASICS", text: "Tables." },
    { heading: "No anchor here", anchor: "", text: "Still basics." },
    { heading: "Legacy", anchor: "legacy", text: "Old style." },
    { heading: "Inner id", anchor: "inner", text: "Wiki style." },
    { heading: "Empty", anchor: "", text: "After an empty heading." },
  ]);
});

Deno.test("extract - ignores ids of page-wide wrappers when anchoring headings", () => {
  const body = '<main id="content"><h1>Title</h1><p>Text.</p></main>';
  assert.deepEqual(extractPage(page("", body), BASE).sections, [
    { heading: "Title", anchor: "", text: "Text." },
  ]);
});

Deno.test("extract - decodes named, numeric and attribute entities", () => {
  const p = extractPage(
    page(
      '<title>Caf&eacute; &#8212; &lt;menu&gt;</title><meta name="description" content="Fish &amp; chips">',
      "<p>&copy; 2024 &#x41;&#66; &hellip; 5 &gt; 3 &amp;&amp; x&nbsp;y &unknown;</p>",
    ),
    BASE,
  );
  assert.equal(p.title, "Café — <menu>");
  assert.equal(p.description, "Fish & chips");
  assert.equal(p.text, "© 2024 AB … 5 > 3 && x y &unknown;");
});

Deno.test("extract - survives unclosed and misnested markup", () => {
  const nested = "<div>".repeat(500) + "<p>Deep</p>";
  assert.equal(extractPage(page("", nested), BASE).text, "Deep");
  const messy = "<p>One<p>Two</span></b><li>Three<div>Four";
  assert.equal(extractPage(messy, BASE).text, "One\nTwo\nThree\nFour");
});

Deno.test("extract - handles a 5 MB page in one linear pass", () => {
  const parts = ['<html lang="en"><head><title>Big</title></head><body><nav>menu</nav><main>'];
  let n = 0;
  for (let size = 0; size < 5_000_000; n++) {
    const s = `<section id="s${n}"><h2>Section ${n}</h2><p>Some <b>Post</b>greSQL text &amp; ` +
      `more about item ${n}, <a href="/p/${n % 500}#x">link</a>.</p><ul><li>one</li><li>two</li>` +
      `</ul><div hidden>secret</div><script>var x = ${n};</script></section>\n`;
    parts.push(s);
    size += s.length;
  }
  parts.push("</main></body></html>");
  const html = parts.join("");
  assert.ok(html.length >= 5_000_000);
  const started = performance.now();
  const p = extractPage(html, "https://example.com/");
  const ms = performance.now() - started;
  assert.equal(p.sections.length, n);
  assert.deepEqual(p.sections[n - 1], {
    heading: `Section ${n - 1}`,
    anchor: `s${n - 1}`,
    text: `Some PostgreSQL text & more about item ${n - 1}, link.\none\ntwo`,
  });
  assert.equal(p.links.length, 500);
  assert.ok(!/secret|var x|menu/.test(p.text));
  // Typically ~0.3 s; the bound only catches a quadratic slip, not a slow machine.
  assert.ok(ms < 5_000, `took ${ms.toFixed(0)} ms`);
});

Deno.test("extract - stops reading where nesting gets deeper than browsers build", () => {
  // 5 MB of unclosed <div>s: quadratic inside the parser unless cut off.
  const html = page(
    "<title>Deep</title>",
    "<p>Before</p>" + "<div>".repeat(1_000_000) + "<p>After</p>",
  );
  const started = performance.now();
  const p = extractPage(html, BASE);
  const ms = performance.now() - started;
  assert.equal(p.title, "Deep");
  assert.equal(p.text, "Before");
  assert.ok(ms < 5_000, `took ${ms.toFixed(0)} ms`);
});

Deno.test("extract - anchored definition terms are section headings; unanchored ones are not", () => {
  const html = page(
    "<title>Gizmos</title>",
    '<h1 id="gizmos">Gizmos</h1><p>All about gizmos.</p><dl><dt id="acme.Gizmo.spin">' +
      'Gizmo.spin(<em>speed</em>)<a class="headerlink" href="#acme.Gizmo.spin">¶</a></dt>' +
      "<dd><p>Spins the gizmo.</p></dd><dt>plain term</dt><dd>Not a section.</dd></dl>",
  );
  const out = extractPage(html, BASE);
  assert.deepEqual(
    out.sections.map((s) => [s.heading, s.anchor]),
    [["Gizmos", "gizmos"], ["Gizmo.spin(speed)", "acme.Gizmo.spin"]],
  );
  const lines = out.text.split("\n");
  assert.ok(lines.includes("Gizmo.spin(speed)"), "the heading is a line of the body");
  assert.ok(lines.includes("plain term"), "an unanchored term stays text");
});

Deno.test("extract - leaves out chrome without landmarks: link bars, the site-name home link, skip links, 'Last update'", () => {
  const html = page(
    "<title>Widgets — Acme 2.0 documentation</title>",
    '<a href="#content">Skip to content</a>' +
      '<div id="hd"><h1><a href="../index.html">Acme 2.0 documentation</a></h1>' +
      '<div id="global-nav"><a href="../index.html">Home</a> | <a href="../contents.html">Table of contents</a></div>' +
      '<div class="nav">&laquo; <a href="a.html">previous</a> | <a href="index.html">up</a> | <a href="b.html">next</a> &raquo;</div></div>' +
      '<div id="content"><h1 id="widgets">Widgets</h1><p>Widgets turn. See <a href="x.html">spinning</a> and <a href="y.html">turning</a>.</p>' +
      "<p>Last update: Nov 11, 2026</p></div>" +
      '<div id="sidebar"><h3>Previous topic</h3><p><a href="a.html">Gadgets</a></p></div>',
  );
  const out = extractPage(html, BASE);
  assert.equal(
    out.text,
    "Widgets\nWidgets turn. See spinning and turning.",
    "only the content is left",
  );
  assert.deepEqual(out.sections.map((s) => s.heading), ["Widgets"]);
});

Deno.test("extract - measures how much of a page is code (a source listing is nearly all)", () => {
  const listing = extractPage(
    page("", "<h1>Source</h1><pre>def spin():\n    return 1\n</pre>"),
    BASE,
  );
  assert.ok(listing.codeShare > 0.6, String(listing.codeShare));
  const prose = extractPage(page("", "<h1>Guide</h1><p>Read this long guide first.</p>"), BASE);
  assert.equal(prose.codeShare, 0);
});

Deno.test("extract - a page's own table of contents (class or id toc) is not its text: its headings are, once", () => {
  const p = extractPage(
    page(
      "<title>Chapter 1</title>",
      '<main><h1>Chapter 1. Basics</h1><div class="toc"><p><b>Table of Contents</b></p>' +
        '<dl><dt><a href="#a">1.1. What is this FAQ?</a></dt><dt><a href="#b">1.2. Who wrote it?</a>' +
        '</dt></dl></div><div id="toc"><ul><li><a href="#a">What is this FAQ?</a></li></ul></div>' +
        '<h2 id="a">1.1. What is this FAQ?</h2><p>It answers questions often asked.</p>' +
        '<h2 id="b">1.2. Who wrote it?</h2><p>Many people over many years.</p></main>',
    ),
    BASE,
  );
  assert.equal(p.text.match(/What is this FAQ\?/g)?.length, 1, p.text);
  assert.ok(!p.text.includes("Table of Contents"), p.text);
  assert.equal(p.description, "It answers questions often asked.");
});

Deno.test("extract - a page without a description is described by its first prose, not its info box's fields", () => {
  const p = extractPage(
    page(
      "<title>grinder</title>",
      '<main><div class="infobox">Plugin: grinder<br>Maintained by: Ada Lovelace<br>' +
        "Shipped with the wiki: no<br>Turned on by default: yes</div>" +
        "<p>This plugin grinds beans to order, so every cup starts fresh.</p>" +
        "<p>Note: the grinder needs a burr set, sold apart and fitted by hand.</p></main>",
    ),
    BASE,
  );
  assert.equal(p.description, "This plugin grinds beans to order, so every cup starts fresh.");
  // A line with a colon that says something is prose: a page that opens with it keeps it.
  const note = extractPage(
    page("<title>n</title>", "<main><p>Note: the grinder needs a burr set, sold apart.</p></main>"),
    BASE,
  );
  assert.equal(note.description, "Note: the grinder needs a burr set, sold apart.");
});
