import { createApp } from "../app.ts";
import { loadCorpus, makeQueries } from "./corpus.ts";
const pages = await loadCorpus(2000);
const kv = await Deno.openKv(":memory:");
const { app, services: s } = createApp({ kv, log: () => {}, summaryIpLimitPerMinute: 1e9 });
const { site, publicKey } = await s.sites.create({ name: "Bench", plan: "enterprise" });
for (const p of pages) await s.pages.upsert(site.id, p, Infinity);
await s.indexes.search(site.id, "warm", 1, 1);
const qs = makeQueries(pages);
const times: number[] = [];
for (let i = 0; i < 210; i++) {
  const t0 = performance.now();
  const res = await app.fetch(
    new Request("http://x/api/summarize", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-API-Key": publicKey },
      body: JSON.stringify({
        query: `What is ${qs[i % qs.length]} and how do I use it?`,
        stream: true,
      }),
    }),
  );
  const reader = res.body!.getReader();
  let text = "";
  const dec = new TextDecoder();
  while (!text.includes("event: delta")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += dec.decode(value);
  }
  if (i >= 10) times.push(performance.now() - t0);
  await reader.cancel();
}
times.sort((a, b) => a - b);
console.log(
  Deno.cwd().includes("base") ? "BASE" : "MINE",
  "p50",
  times[100].toFixed(1),
  "p90",
  times[180].toFixed(1),
  "p99",
  times[198].toFixed(1),
);
kv.close();
