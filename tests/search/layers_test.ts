/**
 * lib/search's layers, read from its sources: the engine's layers import only their own or
 * those below (so there is no cycle, type-only imports included); the engine imports nothing
 * outside itself but npm packages and Node's zlib and crypto, and uses no Deno API, KV, timer
 * or memory hook; lib/search/mod.ts exports at most 16 names. (Who may import which of
 * lib/search's entry points: tests/architecture_test.ts.)
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../lib/search/engine/", import.meta.url);
/** Each layer, and the layers it may import from (its own included). */
const MAY_IMPORT: Record<string, string[]> = {
  analysis: ["analysis"],
  store: ["store", "analysis"],
  query: ["query", "store", "analysis"],
  presentation: ["presentation", "query", "store", "analysis"],
  "": ["", "presentation", "query", "store", "analysis"],
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

/** Package names in deno.json's import map that resolve to npm (what the engine may import). */
async function npmNames(): Promise<Set<string>> {
  const json = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  const names = Object.entries(json.imports as Record<string, string>)
    .filter(([, to]) => to.startsWith("npm:"))
    .map(([name]) => name.replace(/\/$/, ""));
  return new Set(names);
}

Deno.test("search engine - imports only itself, npm packages and Node's zlib and crypto", async () => {
  const files = await sources();
  const npm = await npmNames();
  const allowed = (spec: string) =>
    spec === "node:zlib" || spec === "node:crypto" || spec.startsWith("npm:") ||
    [...npm].some((n) => spec === n || spec.startsWith(n + "/"));
  const wrong: string[] = [];
  for (const [file, text] of files) {
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1];
      if (spec.startsWith(".")) {
        const href = new URL(spec, new URL(file, ROOT)).href;
        if (!href.startsWith(ROOT.href)) wrong.push(`${file} -> ${spec}`);
      } else if (!allowed(spec)) wrong.push(`${file} -> ${spec}`);
    }
  }
  assert.deepEqual(wrong, []);
});

Deno.test("search engine - no Deno API, KV, timers, memory hooks or wire types", async () => {
  const files = await sources();
  const FORBIDDEN =
    /\bDeno\.|\bsetTimeout\b|\bsetInterval\b|\bqueueMicrotask\b|\bopenKv\b|\bglobalThis\.gc\b|wire_types|memory_release/;
  const wrong = [...files]
    .filter(([, text]) => FORBIDDEN.test(text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "")))
    .map(([file]) => file);
  assert.deepEqual(wrong, []);
});

Deno.test("search - lib/search/mod.ts exports at most 16 names", async () => {
  const text = await Deno.readTextFile(new URL("../../lib/search/mod.ts", import.meta.url));
  const names = [...text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)]
    .flatMap((m) => m[1].split(","))
    .map((n) => n.trim().replace(/^type\s+/, ""))
    .filter(Boolean);
  assert.ok(names.length > 0, "its exports were read");
  assert.ok(names.length <= 16, `${names.length} names: ${names.join(", ")}`);
});
