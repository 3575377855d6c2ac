/**
 * The shape of the code (ARCHITECTURE.md): no import cycles among the project's modules (type-only
 * imports included), no exported name defined in two modules of lib/, widget/ or islands/, and
 * the platform tuning (FFI, V8's gc) reached only through main.ts. Each test prints exactly
 * what fails. Files are cut by concept: no line count is enforced.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), ".."));
/** Folders whose modules import each other (components/ and app.ts sit between them). */
const GRAPH_DIRS = ["lib", "routes", "widget", "islands", "components"];
const GRAPH_FILES = ["app.ts", "main.ts"];

/** Every .ts and .tsx file under `dir`, as root-relative paths with forward slashes. */
function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string) => {
    for (const e of Deno.readDirSync(abs)) {
      const path = join(abs, e.name);
      if (e.isDirectory) walk(path);
      else if (/\.tsx?$/.test(e.name)) out.push(relative(ROOT, path).replaceAll("\\", "/"));
    }
  };
  walk(join(ROOT, dir));
  return out.sort();
}

/** `import … from "x"`, `import "x"`, `import type …`, `export … from "x"`, at a line's start. */
const IMPORT_RE =
  /^[ \t]*(?:import|export)\s+(?:type\s+)?(?:[\w$*{}\s,]*?\s*from\s*)?["']([^"']+)["']/gm;

/** The relative modules a file imports or re-exports from, resolved to root-relative paths. */
export function importsOf(file: string, text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(IMPORT_RE)) {
    const spec = m[1];
    if (!spec.startsWith("./") && !spec.startsWith("../")) continue; // npm packages
    out.add(normalize(join(dirname(file), spec)).replaceAll("\\", "/"));
  }
  return [...out];
}

/** The graph's knots: for each, one cycle (a path back to its first module) and all its modules. */
export function cycles(graph: Map<string, string[]>): { cycle: string[]; modules: string[] }[] {
  // Tarjan's strongly connected components; a component of more than one module, or a module
  // importing itself, holds a cycle. One cycle through each component is shown.
  let index = 0;
  const idx = new Map<string, number>(), low = new Map<string, number>();
  const stack: string[] = [], on = new Set<string>();
  const found: { cycle: string[]; modules: string[] }[] = [];
  const strong = (v: string) => {
    idx.set(v, index), low.set(v, index++), stack.push(v), on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) strong(w), low.set(v, Math.min(low.get(v)!, low.get(w)!));
      else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) !== idx.get(v)) return;
    const comp: string[] = [];
    let w: string;
    do comp.push(w = stack.pop()!), on.delete(w); while (w !== v);
    if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) {
      found.push({ cycle: cycleIn(graph, comp), modules: comp.sort() });
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) strong(v);
  return found;
}

/** One shortest cycle through the component's first module (by name), staying inside it. */
function cycleIn(graph: Map<string, string[]>, comp: string[]): string[] {
  const inside = new Set(comp);
  const start = [...comp].sort()[0];
  const prev = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const w of graph.get(queue[i]) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let v = queue[i]; v !== start; v = prev.get(v)!) path.splice(1, 0, v);
        return [...path, start];
      }
      if (!prev.has(w)) prev.set(w, queue[i]), queue.push(w);
    }
  }
  return [start, start];
}

const DECL_RE =
  /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|class|const|let|var|interface|type|enum)\s+([\w$]+)/gm;
const LIST_RE = /^export\s+(type\s+)?\{([^}]*)\}\s*(from\s*["'][^"']+["'])?/gm;
const IMPORTED_RE = /^[ \t]*import\s+(?:type\s+)?([\w$*{}\s,]*?)\s*from\s*["']/gm;

/** The names a module defines and exports (re-exports of imported names are not definitions). */
export function definedExports(text: string): string[] {
  const imported = new Set<string>();
  for (const m of text.matchAll(IMPORTED_RE)) {
    for (const part of m[1].replace(/[{}*]/g, ",").split(",")) {
      const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/).at(-1)?.trim();
      if (name) imported.add(name);
    }
  }
  const names = new Set<string>();
  for (const m of text.matchAll(DECL_RE)) names.add(m[1]);
  for (const m of text.matchAll(LIST_RE)) {
    if (m[3]) continue; // export { … } from "…": a re-export
    for (const part of m[2].split(",")) {
      const [local, as] = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/);
      if (local && !imported.has(local)) names.add((as ?? local).trim());
    }
  }
  return [...names];
}

function graphOfProject(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of [...GRAPH_DIRS.flatMap(sources), ...GRAPH_FILES]) {
    graph.set(file, importsOf(file, Deno.readTextFileSync(join(ROOT, file))));
  }
  return graph;
}

Deno.test("architecture - the parsers find type-only, multi-line and re-exporting imports", () => {
  const text = [
    'import type { A } from "./a.ts";',
    "import {",
    "  b,",
    "  type C,",
    '} from "../b.ts";',
    'export { d } from "./d.ts";',
    'export * from "./e.ts";',
    'import "./side.ts";',
    ' * import x from "./in_a_comment_line_but_not_at_its_start.ts"',
    'import { z } from "zod";',
  ].join("\n");
  assert.deepEqual(importsOf("lib/x/f.ts", text), [
    "lib/x/a.ts",
    "lib/b.ts",
    "lib/x/d.ts",
    "lib/x/e.ts",
    "lib/x/side.ts",
  ]);
  const graph = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]], ["e", ["e"]]]);
  assert.deepEqual(cycles(graph), [
    { cycle: ["a", "b", "c", "a"], modules: ["a", "b", "c"] },
    { cycle: ["e", "e"], modules: ["e"] },
  ]);
  const exports = definedExports([
    'import { kept, type Other as Renamed } from "./k.ts";',
    "export function f() {}",
    "export async function g() {}",
    "export const h = 1;",
    "export interface I {}",
    "export type J = string;",
    "export class K {}",
    "const l = 2;",
    "export { l, kept, Renamed };",
    'export { m } from "./m.ts";',
  ].join("\n"));
  assert.deepEqual(exports.sort(), ["I", "J", "K", "f", "g", "h", "l"]);
});

Deno.test("architecture - no import cycle among lib/, routes/, widget/, islands/ (type-only imports included)", () => {
  const found = cycles(graphOfProject());
  assert.equal(
    found.length,
    0,
    `${found.length} group(s) of modules importing each other in a cycle:\n${
      found.map((f) =>
        `  ${f.cycle.join(" -> ")}\n    (all modules in it: ${f.modules.join(", ")})`
      )
        .join("\n")
    }`,
  );
});

Deno.test("architecture - only main.ts wires in lib/platform; nothing else opens native code or forces a collection", () => {
  const files = [...GRAPH_DIRS.flatMap(sources), ...GRAPH_FILES];
  const wrong = files.filter((file) => !file.startsWith("lib/platform/")).flatMap((file) => {
    const text = Deno.readTextFileSync(join(ROOT, file));
    const found: string[] = [];
    if (file !== "main.ts" && /from "[^"]*platform\//.test(text)) {
      found.push("imports lib/platform");
    }
    if (/Deno\.dlopen|UnsafePointer/.test(text)) found.push("opens native code");
    if (/globalThis[^;\n]*\bgc\b/.test(text)) found.push("reaches V8's gc");
    return found.map((f) => `  ${file}: ${f}`);
  });
  assert.equal(wrong.length, 0, `outside lib/platform:\n${wrong.join("\n")}`);
});

Deno.test("architecture - lib/search is reached through its entry points: the host through engine/mod.ts, the rest through the two mod.ts files", () => {
  const wrong: string[] = [];
  for (const file of [...GRAPH_DIRS.flatMap(sources), ...GRAPH_FILES]) {
    if (file.startsWith("lib/search/engine/")) continue;
    const host = file.startsWith("lib/search/");
    // The browser scripts take the definition of a word alone (the test below).
    const browser = /^(widget|islands)\//.test(file);
    for (const target of importsOf(file, Deno.readTextFileSync(join(ROOT, file)))) {
      if (!target.startsWith("lib/search/")) continue;
      const ok = target === "lib/search/engine/mod.ts" ||
        (browser && target === "lib/search/engine/analysis/word_chars.ts") ||
        (host ? !target.startsWith("lib/search/engine/") : target === "lib/search/mod.ts");
      if (!ok) wrong.push(`  ${file} -> ${target}`);
    }
  }
  assert.equal(wrong.length, 0, `past lib/search's entry points:\n${wrong.join("\n")}`);
});

Deno.test("architecture - the browser code takes from lib/ only the wire types and the definition of a word", () => {
  const shared = new Set(["lib/wire_types.ts", "lib/search/engine/analysis/word_chars.ts"]);
  const wrong = ["widget", "islands"].flatMap(sources).flatMap((file) =>
    importsOf(file, Deno.readTextFileSync(join(ROOT, file)))
      .filter((dep) => dep.startsWith("lib/") && !shared.has(dep))
      .map((dep) => `  ${file} -> ${dep}`)
  );
  assert.equal(wrong.length, 0, `browser code importing server code:\n${wrong.join("\n")}`);
});

Deno.test("architecture - no exported name is defined in two modules of lib/, widget/ or islands/", () => {
  const owners = new Map<string, string[]>();
  for (const file of ["lib", "widget", "islands"].flatMap(sources)) {
    for (const name of definedExports(Deno.readTextFileSync(join(ROOT, file)))) {
      owners.set(name, [...owners.get(name) ?? [], file]);
    }
  }
  const twice = [...owners].filter(([, files]) => files.length > 1).sort();
  assert.equal(
    twice.length,
    0,
    `names defined and exported in more than one module:\n${
      twice.map(([name, files]) => `  ${name}: ${files.join(", ")}`).join("\n")
    }`,
  );
});

/**
 * Modules outside lib/http that still import it, and what for: the composition root, and
 * request shapes and the wire reader a crawl shares with the edge.
 */
const HTTP_IMPORTS_KEPT: Record<string, string[]> = {
  "lib/services.ts": ["lib/http/middleware.ts", "lib/http/proxies.ts", "lib/http/session.ts"],
  "lib/crawl/page.ts": ["lib/http/schemas.ts"],
  "lib/crawl/net/http1.ts": ["lib/http/wire.ts"],
  "lib/levers/curations.ts": ["lib/http/schemas.ts"],
};

Deno.test("architecture - the domain (lib/ outside lib/http) throws DomainError and imports nothing of lib/http", () => {
  const wrong = sources("lib").filter((file) => !file.startsWith("lib/http/")).flatMap((file) => {
    const kept = HTTP_IMPORTS_KEPT[file] ?? [];
    return importsOf(file, Deno.readTextFileSync(join(ROOT, file)))
      .filter((m) => m.startsWith("lib/http/") && !kept.includes(m))
      .map((m) => `  ${file} imports ${m}`);
  });
  assert.equal(wrong.length, 0, `the domain reaching into the HTTP edge:\n${wrong.join("\n")}`);
});
