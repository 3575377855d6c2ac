import assert from "node:assert/strict";
import { DEMO_PAGES, parseDemoPage } from "../../lib/demo/pages.ts";
import { ensureDemoSite } from "../../lib/demo/site.ts";
import { search, startApp } from "../helpers.ts";

Deno.test("demo pages - front matter and Markdown become a plain body: wrapped lines joined, headings and items on their own line", () => {
  const page = parseDemoPage(
    [
      "---",
      "url: /help",
      'title: "Help: the basics"',
      "description: Short text.",
      "---",
      "",
      "First paragraph, wrapped",
      "over two lines.",
      "",
      "## A heading",
      "",
      "- one item",
      "  continued",
      "- two",
      "",
    ].join("\n"),
    "help.md",
  );
  assert.deepEqual(page, {
    url: "/help",
    title: "Help: the basics",
    description: "Short text.",
    body: "First paragraph, wrapped over two lines.\n\nA heading\n\n- one item continued\n- two",
  });
});

Deno.test("demo pages - a file without front matter or a title is refused by name", () => {
  assert.throws(() => parseDemoPage("no front matter", "x.md"), /x\.md: no front matter/);
  assert.throws(() => parseDemoPage("---\nurl: /x\n---\n\nbody", "y.md"), /y\.md: .*title/);
});

Deno.test("demo pages - every file under lib/demo/pages is read, with unique URLs", () => {
  assert.equal(DEMO_PAGES.length, 39);
  assert.equal(new Set(DEMO_PAGES.map((p) => p.url)).size, DEMO_PAGES.length);
  assert.ok(DEMO_PAGES.every((p) => p.body.length > 200 && !p.body.includes("## ")));
});

Deno.test("demo site - a one-word query goes to the page given to it, not to a section of the FAQ or the shop", async () => {
  const t = await startApp();
  try {
    const demo = await ensureDemoSite(t.services);
    for (
      const [query, url] of [["shipping", "/shipping"], ["decaf", "/shop/colombia-huila-decaf"]]
    ) {
      const { body } = await search(t, demo.publicKey, `q=${query}`);
      assert.equal(new URL(body.results[0].url, "http://x").pathname, url, query);
    }
  } finally {
    t.close();
  }
});
