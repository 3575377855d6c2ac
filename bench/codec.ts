/**
 * Index snapshot benchmark (`deno run -A --v8-flags=--expose-gc bench/codec.ts [pages]`):
 * builds one site's index from the corpus in process, then times encodeSiteDb and
 * decodeSiteDb (median of 7) and prints the snapshot's size and what the index holds.
 */
import { loadCorpus, mb, ms, percentile } from "./corpus.ts";
import {
  addDoc,
  createSiteDb,
  headingsText,
  type SiteDb,
} from "../lib/search/engine/store/site_db.ts";
import { rank } from "../lib/search/engine/query/rank.ts";
import { decodeSiteDb, encodeSiteDb } from "../lib/search/engine/snapshot_codec.ts";

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** Heap and buffers in use once garbage is collected (buffers are freed just after a GC). */
async function used(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 100));
  }
  const m = Deno.memoryUsage();
  return m.heapUsed + m.external;
}

export async function benchCodec(pages: number) {
  const corpus = (await loadCorpus()).slice(0, pages);
  const base = await used();
  let t = performance.now();
  let db: SiteDb | null = createSiteDb();
  for (const p of corpus) {
    const sections = (p.headings ?? []).map((heading) => ({ heading, anchor: "" }));
    addDoc(db, {
      id: p.url,
      title: p.title,
      description: p.description ?? "",
      headings: headingsText(sections),
      body: p.body,
      lang: p.lang,
      sections,
    });
  }
  rank(db, "warm");
  const build = performance.now() - t;
  const held = (await used()) - base;
  const enc: number[] = [], dec: number[] = [];
  let bytes: Uint8Array = new Uint8Array();
  for (let i = 0; i < 7; i++) {
    t = performance.now();
    bytes = encodeSiteDb(db);
    enc.push(performance.now() - t);
    t = performance.now();
    decodeSiteDb(bytes);
    dec.push(performance.now() - t);
  }
  db = null;
  console.log(
    `\n## Index snapshot: ${corpus.length} pages\nbuild in process ${ms(build)}; index holds ${
      mb(held)
    } (${mb(held / corpus.length * 1000)} per 1,000 pages); snapshot ${mb(bytes.length)}; ` +
      `encode ${ms(percentile(enc, 50))}, decode ${ms(percentile(dec, 50))} (median of 7)`,
  );
}

if (import.meta.main) await benchCodec(Number(Deno.args[0] ?? 2000));
