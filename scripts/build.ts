/**
 * Builds the browser scripts: widget/*.ts → static/widget.js and static/results.js, minified
 * IIFEs (nothing leaks into the host page's globals), and islands/ → static/islands.js (Preact
 * and every island, hydrated by islands/boot.ts). Each bundle starts with a stamp of the
 * sources it was built from, so `start` and the tests can tell a stale bundle from a fresh one.
 *
 *   deno task build
 */

const ROOT = new URL("../", import.meta.url);

export interface Bundle {
  entry: string;
  out: string;
  /** Size budget, gzipped, in bytes (checked by tests/scripts_test.ts). */
  budget: number;
  /** The folder of its sources (hashed into its stamp). */
  dir: string;
  /** Islands resolve `preact` through deno.json's import map and JSX settings. */
  config?: boolean;
}

export const BUNDLES: Bundle[] = [
  { entry: "widget/widget.ts", out: "static/widget.js", budget: 12 * 1024, dir: "widget" },
  { entry: "widget/results.ts", out: "static/results.js", budget: 20 * 1024, dir: "widget" },
];

/** The service's own pages' islands (not embedded on customers' sites). */
export const ISLAND_BUNDLES: Bundle[] = [
  {
    entry: "islands/boot.ts",
    out: "static/islands.js",
    budget: 40 * 1024,
    dir: "islands",
    config: true,
  },
];

const ALL = [...BUNDLES, ...ISLAND_BUNDLES];

/** Bump when the build itself changes in a way that changes the output. */
const BUILD_FORMAT = "iife-minify-1";
const STAMP = /^\/\*! SiteSearch \S+ src:([0-9a-f]+) \*\//;

/** A hash of every source file of a folder (paths and bytes), which each bundle records. */
export async function sourceHash(root: URL = ROOT, folder = "widget"): Promise<string> {
  const dir = new URL(folder + "/", root);
  const files: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && /\.tsx?$/.test(e.name)) files.push(e.name);
  }
  files.sort();
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [enc.encode(BUILD_FORMAT + "\n")];
  for (const name of files) {
    parts.push(enc.encode(name + "\n"), await Deno.readFile(new URL(name, dir)), enc.encode("\n"));
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
    if ((await stampOf(b.out, root)) !== await sourceHash(root, b.dir)) stale.push(b);
  }
  return stale;
}

/** Gzipped size of some bytes. */
export async function gzipSize(bytes: Uint8Array): Promise<number> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

/** Bundles one entry with `deno bundle` and writes it, stamped, atomically. */
async function buildOne(b: Bundle, hash: string, root: URL): Promise<Uint8Array> {
  const tmp = await Deno.makeTempFile({ suffix: ".js" });
  try {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        ...(b.config ? ["--config", new URL("deno.json", root).pathname] : ["--no-config"]),
        "--minify",
        "--platform=browser",
        "--format=iife",
        "-o",
        tmp,
        new URL(b.entry, root).pathname,
      ],
      cwd: root,
      stdout: "null",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    if (code !== 0) {
      throw new Error(`deno bundle ${b.entry} failed:\n${new TextDecoder().decode(stderr)}`);
    }
    const name = b.out.replace(/^.*\//, "");
    const body = (await Deno.readTextFile(tmp)).trim();
    const text = `/*! SiteSearch ${name} src:${hash} */\n${body}\n`;
    const bytes = new TextEncoder().encode(text);
    const out = new URL(b.out, root);
    await Deno.mkdir(new URL(".", out), { recursive: true });
    const staging = new URL(b.out + ".tmp", root);
    await Deno.writeFile(staging, bytes);
    await Deno.rename(staging, out);
    return bytes;
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
}

/** Builds every bundle; returns their raw and gzipped sizes. */
export async function build(
  root: URL = ROOT,
): Promise<{ out: string; bytes: number; gzip: number; budget: number }[]> {
  const sizes = [];
  for (const b of ALL) {
    const bytes = await buildOne(b, await sourceHash(root, b.dir), root);
    sizes.push({
      out: b.out,
      bytes: bytes.byteLength,
      gzip: await gzipSize(bytes),
      budget: b.budget,
    });
  }
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
