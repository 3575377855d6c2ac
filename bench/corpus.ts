/**
 * The benchmark corpus: real documentation sites from Debian's packages
 * (postgresql-doc-15, python-django-doc, python3-doc), extracted with the
 * crawler's extractor and cached in bench/.cache so reruns start fast.
 */
import { extractPage } from "../lib/crawl/extract.ts";
import type { PageInput } from "../lib/sites/pages.ts";
import type { createApp } from "../app.ts";

export const SOURCES = [
  { name: "postgresql", dir: "/usr/share/doc/postgresql-doc-15/html" },
  { name: "django", dir: "/usr/share/doc/python-django-doc/html" },
  { name: "python", dir: "/usr/share/doc/python3/html" },
];

/** Index pages of a site that list every other page: left out, as the eval README says. */
const SKIP = /(^|\/)(genindex[^/]*|py-modindex|search|bookindex|index-\w+)\.html$/;

async function* htmlFiles(dir: string, base = dir): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory && !e.name.startsWith("_")) yield* htmlFiles(path, base);
    else if (e.isFile && e.name.endsWith(".html") && !SKIP.test(path)) yield path;
  }
}

/** Pages of every installed source, up to `limit`, as the admin API would receive them. */
export async function loadCorpus(limit = Infinity): Promise<PageInput[]> {
  const cache = new URL("./.cache/corpus.json", import.meta.url);
  let pages: PageInput[];
  try {
    pages = JSON.parse(await Deno.readTextFile(cache));
  } catch {
    pages = [];
    for (const src of SOURCES) {
      try {
        await Deno.stat(src.dir);
      } catch {
        console.error(`(not installed: ${src.dir}; apt-get install the doc package to use it)`);
        continue;
      }
      for await (const path of htmlFiles(src.dir)) {
        const rel = path.slice(src.dir.length);
        const page = extractPage(await Deno.readTextFile(path), `http://127.0.0.1${rel}`);
        if (!page.title || page.text.length < 50) continue;
        pages.push({
          url: `/${src.name}${rel}`,
          title: page.title.slice(0, 500),
          description: page.description.slice(0, 1000),
          body: page.text.slice(0, 2_000_000),
          lang: page.lang || undefined,
          headings: page.sections.map((x) => x.heading).filter(Boolean).slice(0, 200),
        });
      }
    }
    await Deno.mkdir(new URL("./.cache/", import.meta.url), { recursive: true });
    await Deno.writeTextFile(cache, JSON.stringify(pages));
  }
  return pages.slice(0, limit);
}

/** Deterministic pseudo-random numbers, so every run asks the same queries. */
export function rng(seed = 42) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/** Realistic queries: title words, two-word title phrases, and one-typo variants of words. */
export function makeQueries(pages: PageInput[], n = 300): string[] {
  const rand = rng();
  const words = (t: string) => (t.toLowerCase().match(/[a-z]{4,}/g) ?? []);
  const out: string[] = [];
  while (out.length < n) {
    const w = words(pages[Math.floor(rand() * pages.length)].title);
    if (w.length === 0) continue;
    const i = Math.floor(rand() * w.length);
    const kind = out.length % 3;
    if (kind === 0) out.push(w[i]);
    else if (kind === 1 && w.length > 1) {
      out.push(`${w[Math.min(i, w.length - 2)]} ${w[Math.min(i, w.length - 2) + 1]}`);
    } else {
      const word = w[i];
      const at = 1 + Math.floor(rand() * (word.length - 2));
      out.push(word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2)); // swap two letters
    }
  }
  return out;
}

/** p-th percentile of a list of numbers. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

export const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;
export const ms = (x: number) => `${x.toFixed(2)} ms`;

/**
 * An app for a bench (this checkout's `createApp`, or another's) on a KV file, with one
 * enterprise site whose searches no quota stops.
 */
export async function benchApp(make: typeof createApp, kvPath: string, name = "Bench") {
  const kv = await Deno.openKv(kvPath);
  const made = make({ kv, operatorToken: "op_bench", log: () => {}, summaryIpLimitPerMinute: 1e9 });
  const s = made.services;
  const { site, publicKey } = await s.sites.create({ name, plan: "enterprise" });
  await s.sites.update(site.id, (x) => ({ ...x, limits: { searchesPerMinute: 1e12 } }));
  return { ...made, kv, site, publicKey };
}
