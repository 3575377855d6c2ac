/** The benchmarks' real queries (bench/search.ts, bench/same_results.ts). */
import { rng } from "./corpus.ts";

/**
 * Real queries, not title words: the entries of the back-of-book indexes of the installed
 * documentation (pages the corpus leaves out), in a fixed shuffled order.
 */
export async function indexQueries(): Promise<string[]> {
  const read = (path: string) => Deno.readTextFile(path).catch(() => "");
  const text = (html: string) =>
    html.replace(/<[^>]+>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&").trim();
  const found = new Set<string>();
  const pg = await read("/usr/share/doc/postgresql-doc-15/html/bookindex.html");
  for (const m of pg.matchAll(/<dt[^>]*>(.*?)(?:, <a |<dl|<\/dt>)/gs)) found.add(text(m[1]));
  const py = await read("/usr/share/doc/python3/html/genindex-all.html");
  for (const m of py.matchAll(/<li><a href="[^"]*">([^<]*)<\/a>/g)) {
    const entry = text(m[1]).replace(/\s*\([^)]*\)$/, ""); // "len() (built-in function)"
    if (!entry.startsWith("in ") && entry.length < 60) found.add(entry);
  }
  found.delete("");
  const out = [...found];
  const rand = rng(11);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
