import assert from "node:assert/strict";
import { PageStore } from "../../lib/sites/pages.ts";

Deno.test("pages - sections are kept in order with their anchors, and headings are read back from them", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const pages = new PageStore(kv, () => Date.UTC(2026, 10, 1));
    const sections = [
      { heading: "Install", anchor: "install" },
      { heading: "Gizmo.spin(speed)", anchor: "acme.Gizmo.spin" },
      { heading: "Notes", anchor: "" },
    ];
    const body = "Intro\nInstall\nRun it.\nGizmo.spin(speed)\nSpins.\nNotes\nNone.";
    assert.equal(
      await pages.upsert("s1", { url: "/a", title: "A", body, sections }, 10),
      "created",
    );
    const page = await pages.get("s1", "/a");
    assert.deepEqual(page?.sections, sections);
    assert.deepEqual(page?.headings, ["Install", "Gizmo.spin(speed)", "Notes"]);
    const listed = (await pages.list("s1", { limit: 10 })).pages[0];
    assert.deepEqual(listed.headings, page?.headings);
    assert.equal(
      await pages.upsert("s1", { url: "/a", title: "A", body, sections }, 10),
      "unchanged",
    );
  } finally {
    kv.close();
  }
});

Deno.test("pages - a page with more sections than its metadata value can hold keeps the first ones and is stored", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const pages = new PageStore(kv, () => Date.UTC(2026, 10, 1));
    // 1,000 sections of 200 three-byte characters each: about 600 KB as written.
    const sections = Array.from({ length: 1000 }, (_, i) => ({
      heading: `${i} ${"€".repeat(195)}`,
      anchor: `a${i}`.padEnd(200, "x"),
    }));
    const body = sections.map((s) => `${s.heading}\ntext`).join("\n");
    const title = "T".repeat(500), description = "€".repeat(1000);
    assert.equal(
      await pages.upsert("s1", { url: "/big", title, description, body, sections }, 10),
      "created",
    );
    const kept = (await pages.get("s1", "/big"))!.sections!;
    assert.ok(kept.length > 10 && kept.length < 1000, String(kept.length));
    assert.deepEqual(kept, sections.slice(0, kept.length), "the first ones, in order");
  } finally {
    kv.close();
  }
});
