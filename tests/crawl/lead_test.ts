import assert from "node:assert/strict";
import { extractPage } from "../../lib/crawl/extract.ts";

const page = (head: string, main: string) =>
  `<!doctype html><html lang="en"><head><title>git-am(1)</title>${head}</head>` +
  `<body><nav><a href="/">Home</a></nav><main>${main}</main></body></html>`;

Deno.test("lead - a page without a description of its own is described by its lead, as a search engine shows it", () => {
  const p = extractPage(
    page(
      "",
      "<h1>git-am(1)</h1><h2>NAME</h2><p>git-am - Apply a series of patches from a mailbox</p>" +
        "<h2>SYNOPSIS</h2><p>git am [--signoff] [--keep] [(mbox | Maildir)…]</p>",
    ),
    "http://127.0.0.1/git-am.html",
  );
  assert.equal(p.description, "git-am - Apply a series of patches from a mailbox");
});

Deno.test("lead - the page's own meta description wins over its lead", () => {
  const p = extractPage(
    page(
      '<meta name="description" content="Apply patches.">',
      "<p>A long first paragraph here.</p>",
    ),
    "http://127.0.0.1/a",
  );
  assert.equal(p.description, "Apply patches.");
});

Deno.test("lead - a short first block (a date) is no lead, and a long one is cut at a word", () => {
  const long = "Shipping takes two to three days within the country and about a week abroad, " +
    "and every parcel is tracked from our warehouse to your door, with a message at each step " +
    "of its way and a photo when it arrives.";
  const p = extractPage(page("", `<p>May 2026</p><p>${long}</p>`), "http://127.0.0.1/a");
  assert.ok(p.description.endsWith("…"), p.description);
  assert.ok(p.description.length <= 160, p.description);
  // Whole words of the lead, up to the ellipsis.
  assert.ok(long.startsWith(`${p.description.slice(0, -1)} `), p.description);
});
