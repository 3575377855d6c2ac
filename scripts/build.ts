/**
 * Builds the browser scripts: widget/ → static/widget.js and static/results.js, minified IIFEs
 * (nothing leaks into the host page's globals), and islands/ → one bundle for the public results
 * page and one for the dashboard (Preact and their islands). Each bundle starts with a stamp of
 * the sources it was built from, so `start` and the tests can tell a stale bundle from a fresh
 * one. Every bundle must stay within 12 KB gzipped.
 *
 *   deno task build
 */

import { staticFiles } from "../widget/i18n/all.ts";

const ROOT = new URL("../", import.meta.url);

export interface Bundle {
  entry: string;
  out: string;
  /** Size budget, gzipped, in bytes (checked by tests/scripts_test.ts). */
  budget: number;
  /** The folders of its sources, with their subfolders (hashed into its stamp). */
  dirs: string[];
}

const BUDGET = 12 * 1024;
/** The browser client (widget/client/) lives under widget/, so the islands hash it too. */
const ISLAND_DIRS = ["islands", "widget"];

export const BUNDLES: Bundle[] = [
  { entry: "widget/widget.ts", out: "static/widget.js", budget: BUDGET, dirs: ["widget"] },
  { entry: "widget/results.ts", out: "static/results.js", budget: BUDGET, dirs: ["widget"] },
];

/** The SSE parser as a module, which the client imports when an answer first streams. */
export const SSE_MODULE: Bundle = {
  entry: "widget/client/sse.ts",
  out: "static/sse.js",
  budget: BUDGET,
  dirs: ["widget"],
};

/** Where the islands' modules land (entries, and the chunk they share), served as /assets/islands/. */
export const ISLANDS_DIR = "static/islands";

/** The service's own pages' islands (not embedded on customers' sites): public and dashboard. */
export const ISLAND_BUNDLES: Bundle[] = [
  {
    entry: "islands/boot_results.ts",
    out: `${ISLANDS_DIR}/boot_results.js`,
    budget: BUDGET,
    dirs: ISLAND_DIRS,
  },
  {
    entry: "islands/boot_dashboard.ts",
    out: `${ISLANDS_DIR}/boot_dashboard.js`,
    budget: BUDGET,
    dirs: ISLAND_DIRS,
  },
  {
    entry: "islands/boot_analytics.ts",
    out: `${ISLANDS_DIR}/boot_analytics.js`,
    budget: BUDGET,
    dirs: ISLAND_DIRS,
  },
  {
    entry: "islands/boot_freshness.ts",
    out: `${ISLANDS_DIR}/boot_freshness.js`,
    budget: BUDGET,
    dirs: ISLAND_DIRS,
  },
  {
    entry: "islands/boot_operator.ts",
    out: `${ISLANDS_DIR}/boot_operator.js`,
    budget: BUDGET,
    dirs: ISLAND_DIRS,
  },
];

/** The results page's AI answer as a module, which results.js imports when answers are on. */
export const ANSWER_MODULE: Bundle = {
  entry: "widget/answer.ts",
  out: "static/answer.js",
  budget: BUDGET,
  dirs: ["widget"],
};

const ALL = [...BUNDLES, SSE_MODULE, ANSWER_MODULE, ...ISLAND_BUNDLES];

/** Bump when the build itself changes in a way that changes the output. */
const BUILD_FORMAT = "iife-minify-2";
const STAMP = /^\/\*! SiteSearch \S+ src:([0-9a-f]+) \*\//;

/** The .ts and .tsx files under a folder, as paths from `root`, sorted. */
async function sourcesUnder(root: URL, folder: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(new URL(folder + "/", root))) {
    const path = `${folder}/${e.name}`;
    if (e.isDirectory) out.push(...await sourcesUnder(root, path));
    else if (e.isFile && /\.tsx?$/.test(e.name)) out.push(path);
  }
  return out.sort();
}

/** A hash of every source file under some folders (paths and bytes), which each bundle records. */
export async function sourceHash(
  root: URL = ROOT,
  folders: string[] = ["widget"],
): Promise<string> {
  const files = [...new Set((await Promise.all(folders.map((f) => sourcesUnder(root, f)))).flat())]
    .sort();
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [enc.encode(BUILD_FORMAT + "\n")];
  for (const name of files) {
    parts.push(enc.encode(name + "\n"), await Deno.readFile(new URL(name, root)), enc.encode("\n"));
  }
  const all = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) all.set(p, (at += p.byteLength) - p.byteLength);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", all));
  return Array.from(digest.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The source hash a built bundle records, or null when it is missing or unstamped. */
export async function stampOf(out: string, root: URL = ROOT): Promise<string | null> {
  try {
    const head = (await Deno.readTextFile(new URL(out, root))).slice(0, 200);
    return STAMP.exec(head)?.[1] ?? null;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

/** The bundles that are missing or were built from other sources than the current ones. */
export async function staleBundles(root: URL = ROOT): Promise<Bundle[]> {
  const stale: Bundle[] = [];
  for (const b of ALL) {
    if ((await stampOf(b.out, root)) !== await sourceHash(root, b.dirs)) stale.push(b);
  }
  return stale;
}

/** Gzipped size of some bytes. */
export async function gzipSize(bytes: Uint8Array): Promise<number> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

/** Runs `deno bundle` (minified, for browsers) with these arguments. */
async function denoBundle(args: string[], root: URL, what: string): Promise<void> {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      // npm packages (preact, eventsource-parser) resolve through deno.json's import map.
      "--config",
      new URL("deno.json", root).pathname,
      "--minify",
      "--platform=browser",
      ...args,
    ],
    cwd: root,
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  if (code !== 0) {
    throw new Error(`deno bundle ${what} failed:\n${new TextDecoder().decode(stderr)}`);
  }
}

/** Writes a built file under `out`, stamped with its sources' hash, atomically. */
async function writeStamped(out: string, body: string, hash: string, root: URL) {
  const name = out.replace(/^.*\//, "");
  const bytes = new TextEncoder().encode(`/*! SiteSearch ${name} src:${hash} */\n${body.trim()}\n`);
  const url = new URL(out, root);
  await Deno.mkdir(new URL(".", url), { recursive: true });
  const staging = new URL(out + ".tmp", root);
  await Deno.writeFile(staging, bytes);
  await Deno.rename(staging, url);
  return { out, bytes: bytes.byteLength, gzip: await gzipSize(bytes), budget: BUDGET };
}

type Built = Awaited<ReturnType<typeof writeStamped>>;

/** Bundles one entry: a classic script (an IIFE: nothing leaks into the host page) or a module. */
async function buildScript(b: Bundle, root: URL, format = "iife"): Promise<Built> {
  const tmp = await Deno.makeTempFile({ suffix: ".js" });
  try {
    const entry = new URL(b.entry, root).pathname;
    await denoBundle([`--format=${format}`, "-o", tmp, entry], root, b.entry);
    return await writeStamped(
      b.out,
      await Deno.readTextFile(tmp),
      await sourceHash(root, b.dirs),
      root,
    );
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
}

/**
 * Bundles the islands' entries together as modules, split so that what both share (Preact, the
 * client) is one chunk the browser caches once; replaces every file of the islands folder.
 */
async function buildIslands(root: URL): Promise<Built[]> {
  const tmp = await Deno.makeTempDir();
  try {
    const entries = ISLAND_BUNDLES.map((b) => new URL(b.entry, root).pathname);
    await denoBundle(
      ["--format=esm", "--code-splitting", "--outdir", tmp, ...entries],
      root,
      "islands",
    );
    const dir = new URL(ISLANDS_DIR + "/", root);
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    const hash = await sourceHash(root, ISLAND_DIRS);
    const built: Built[] = [];
    for await (const e of Deno.readDir(tmp)) {
      if (!e.isFile || !e.name.endsWith(".js")) continue;
      const body = await Deno.readTextFile(`${tmp}/${e.name}`);
      built.push(await writeStamped(`${ISLANDS_DIR}/${e.name}`, body, hash, root));
    }
    return built.sort((a, b) => a.out.localeCompare(b.out));
  } finally {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

/** Writes each language's strings but English (bundled) as static/i18n/<lang>.json. */
async function buildTables(root: URL): Promise<Built[]> {
  const built: Built[] = [];
  for (const [path, json] of staticFiles()) {
    const bytes = new TextEncoder().encode(json);
    const out = new URL(`static/${path}`, root);
    await Deno.mkdir(new URL(".", out), { recursive: true });
    await Deno.writeFile(out, bytes);
    built.push({
      out: `static/${path}`,
      bytes: bytes.byteLength,
      gzip: await gzipSize(bytes),
      budget: BUDGET,
    });
  }
  return built;
}

/** Builds every bundle and strings table; returns each file's raw and gzipped sizes. */
export async function build(root: URL = ROOT): Promise<Built[]> {
  const sizes: Built[] = [];
  for (const b of BUNDLES) sizes.push(await buildScript(b, root));
  sizes.push(await buildScript(SSE_MODULE, root, "esm"));
  sizes.push(await buildScript(ANSWER_MODULE, root, "esm"));
  sizes.push(...await buildIslands(root));
  sizes.push(...await buildTables(root));
  return sizes;
}

/**
 * Builds the bundles when missing or stale, before the server starts. Where building is not
 * possible (no widget sources, no permission to run `deno bundle`), the committed bundles serve.
 */
export async function ensureBuilt(log: (msg: string) => void = console.log): Promise<void> {
  try {
    const stale = await staleBundles();
    if (stale.length === 0) return;
    log(`Building ${stale.map((b) => b.out).join(", ")} (missing or stale)…`);
    await build();
  } catch (e) {
    log(`Could not build the browser scripts; serving the committed ones. ${e}`);
  }
}

if (import.meta.main) {
  for (const s of await build()) {
    const kb = (n: number) => (n / 1024).toFixed(1) + " KB";
    const over = s.gzip > s.budget ? `  OVER BUDGET (${kb(s.budget)})` : "";
    console.log(`${s.out}: ${kb(s.bytes)}, ${kb(s.gzip)} gzipped${over}`);
  }
}
