/**
 * lib/search's layers, read from its sources: every import (type-only ones too) goes to a
 * layer below or beside its own, so there is no cycle.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../lib/search/", import.meta.url);
/** Each layer, and the layers it may import from (its own included). */
const MAY_IMPORT: Record<string, string[]> = {
  analysis: ["analysis"],
  store: ["store", "analysis"],
  persistence: ["persistence", "store", "analysis"],
  query: ["query", "store", "analysis"],
  presentation: ["presentation", "query", "store", "analysis"],
  "": ["", "presentation", "query", "persistence", "store", "analysis"],
};
const IMPORT = /^(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms;

async function sources(dir = ROOT, prefix = ""): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) {
      for (const [k, v] of await sources(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`)) {
        out.set(k, v);
      }
    } else if (e.name.endsWith(".ts")) {
      out.set(prefix + e.name, await Deno.readTextFile(new URL(e.name, dir)));
    }
  }
  return out;
}

/** A file's imports inside lib/search, as paths relative to it. */
function imports(file: string, text: string): string[] {
  const base = new URL(file, ROOT);
  return [...text.matchAll(IMPORT)]
    .filter((m) => m[1].startsWith("."))
    .map((m) => new URL(m[1], base).href)
    .filter((href) => href.startsWith(ROOT.href))
    .map((href) => href.slice(ROOT.href.length));
}

const layerOf = (file: string) => file.includes("/") ? file.split("/")[0] : "";

Deno.test("search layers - every import goes to the file's own layer or one below it", async () => {
  const files = await sources();
  assert.ok(files.has("mod.ts") && files.has("store/site_db.ts"), "the sources were read");
  const wrong: string[] = [];
  for (const [file, text] of files) {
    const allowed = MAY_IMPORT[layerOf(file)];
    assert.ok(allowed, `${file} is in no known layer`);
    for (const dep of imports(file, text)) {
      assert.ok(files.has(dep), `${file} imports ${dep}, which does not exist`);
      if (!allowed.includes(layerOf(dep))) wrong.push(`${file} -> ${dep}`);
    }
  }
  assert.deepEqual(wrong, []);
});

Deno.test("search layers - no import cycle, type-only imports included", async () => {
  const files = await sources();
  const graph = new Map([...files].map(([f, t]) => [f, imports(f, t)]));
  const state = new Map<string, "open" | "done">();
  const cycles: string[] = [];
  const visit = (f: string, path: string[]) => {
    if (state.get(f) === "done") return;
    if (state.get(f) === "open") {
      cycles.push([...path.slice(path.indexOf(f)), f].join(" -> "));
      return;
    }
    state.set(f, "open");
    for (const d of graph.get(f) ?? []) visit(d, [...path, f]);
    state.set(f, "done");
  };
  for (const f of graph.keys()) visit(f, []);
  assert.deepEqual(cycles, []);
});
