/** Page filters in the page store: kept in the metadata value, within KV's limits. */
import assert from "node:assert/strict";
import { PageStore } from "../../lib/sites/pages.ts";
import { KV_LIMITS, valueBytes } from "../../lib/storage/kv_limits.ts";

Deno.test("filters store - a page with filters at their limits and thousands of long sections keeps every filter, in one value under KV's limit", async () => {
  const kv = await Deno.openKv(":memory:");
  const pages = new PageStore(kv, Date.now);
  const wide = "字".repeat(64); // three bytes a character in UTF-8
  const filters = Object.fromEntries(
    Array.from(
      { length: 10 },
      (_, i) => [`${wide.slice(0, 60)}${i}`, [wide, `${wide.slice(1)}${i}`]],
    ),
  );
  const sections = Array.from({ length: 1000 }, (_, i) => ({
    heading: `${"Heading ".repeat(24)}${i}`,
    anchor: `a${"n".repeat(190)}${i}`,
  }));
  const status = await pages.upsert("s1", {
    url: "/wide",
    title: "Wide",
    body: sections.map((s) => s.heading).join("\n"),
    sections,
    filters,
  }, 100);
  assert.equal(status, "created");
  const meta = (await kv.get(["page", "s1", "/wide"])).value as { filters: unknown };
  assert.ok(valueBytes(meta) <= KV_LIMITS.valueBytes);
  assert.deepEqual(meta.filters, Object.fromEntries(Object.entries(filters).sort()));
  // The same page with its filters in another order is unchanged; other filters update it.
  const reordered = Object.fromEntries(Object.entries(filters).reverse());
  const again = await pages.upsert("s1", {
    url: "/wide",
    title: "Wide",
    body: sections.map((s) => s.heading).join("\n"),
    sections,
    filters: reordered,
  }, 100);
  assert.equal(again, "unchanged");
  const changed = await pages.upsert("s1", {
    url: "/wide",
    title: "Wide",
    body: sections.map((s) => s.heading).join("\n"),
    sections,
    filters: { other: ["x"] },
  }, 100);
  assert.equal(changed, "updated");
  kv.close();
});
