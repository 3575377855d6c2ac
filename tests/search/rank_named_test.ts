import assert from "node:assert/strict";
import { docAt, rank, type SiteDb } from "../../lib/search/engine/mod.ts";
import { site } from "./sites.ts";

const urls = (db: SiteDb, q: string) => rank(db, q).ids.map((i) => docAt(db, i).id);

const lister = (n: number) =>
  Array.from({ length: n }, (_, i) => `acme.parts.item${i}`).join(" ") +
  " acme.tools.saw acme.tools.drill: every module of the package, one a line.";

Deno.test("rank named - the page titled with the module a query names comes before the contents page that lists every module", () => {
  const db = site([
    { id: "/reference/index", title: "Module reference", body: lister(30) },
    { id: "/reference/acme.tools.saw", title: "acme.tools.saw", body: "Cuts boards along a line." },
    { id: "/reference/acme.tools", title: "acme.tools", body: "Tools: the saw and the drill." },
  ]);
  assert.equal(urls(db, "module acme.tools.saw")[0], "/reference/acme.tools.saw");
  // A title that names only part of the query ("acme.tools") is not the page asked for.
  assert.deepEqual(urls(db, "module acme.tools.saw").slice(1).sort(), [
    "/reference/acme.tools",
    "/reference/index",
  ]);
});

Deno.test("rank named - a one-word title is not taken for the page a query names", () => {
  const db = site([
    { id: "/topics/templates", title: "Templates", body: "Templates render pages." },
    {
      id: "/ref/builtins",
      title: "Built-in tags and filters",
      body: "The upper template filter turns text to capitals. Template filter upper.",
    },
  ]);
  assert.equal(urls(db, "template upper")[0], "/ref/builtins");
});

Deno.test("rank named - a page with a heading and a subheading naming each part of a joined name comes before guides that use the words more", () => {
  const db = site([
    {
      id: "/topics/queues",
      title: "The queue framework",
      body: "Queues hold jobs. Every queue has a max depth; the max_depth of queues. ".repeat(
        5,
      ),
      sections: ["Setting up a queue", "Queue arguments"],
    },
    {
      id: "/ref/settings",
      title: "Settings",
      body: "Every setting, one by one. A dictionary of queues. The max_depth setting.",
      sections: ["Core settings", "QUEUES", "MAX_DEPTH", "TIMEOUT"],
    },
  ]);
  assert.equal(urls(db, "QUEUES-MAX_DEPTH")[0], "/ref/settings");
  // A heading that names only part of a longer query does not count.
  assert.equal(urls(db, "queues max_depth every queue")[0], "/topics/queues");
});
