import { createApp } from "../app.ts";
import { loadCorpus, makeQueries } from "./corpus.ts";
import { retrieve } from "../lib/answers/retrieve.ts";
import { splitSections } from "../lib/answers/sections.ts";
import { extractiveAnswer } from "../lib/answers/extractive.ts";
const pages = await loadCorpus(2000);
const kv = await Deno.openKv(":memory:");
const { services: s } = createApp({ kv, log: () => {} });
const { site } = await s.sites.create({ name: "Bench", plan: "enterprise" });
for (const p of pages) await s.pages.upsert(site.id, p, Infinity);
await s.indexes.search(site.id, "warm", 1, 1);
const qs = makeQueries(pages).slice(0, 100).map((q) => `What is ${q} and how do I use it?`);
const T: Record<string, number[]> = { top: [], split: [], retrieve: [], answer: [] };
for (const q of qs) {
  let t = performance.now();
  const docs = await s.indexes.top(site.id, q, 16, 30000);
  T.top.push(performance.now() - t);
  t = performance.now();
  for (const d of docs) splitSections(d);
  T.split.push(performance.now() - t);
  t = performance.now();
  const r = await retrieve(s, site, q);
  T.retrieve.push(performance.now() - t);
  t = performance.now();
  extractiveAnswer(q, r.texts);
  T.answer.push(performance.now() - t);
}
for (const [k, v] of Object.entries(T)) {
  v.sort((a, b) => a - b);
  console.log(k, v[50].toFixed(1), v[98].toFixed(1), v[99].toFixed(1));
}
kv.close();
