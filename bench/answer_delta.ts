/**
 * First-seen answers in process, 2,000 pages: per question, the CPU and wall time of
 * retrieval (lib/answers/retrieve.ts) and of composing the extractive answer, and the
 * first streamed delta through /api/summarize. `--dump FILE` writes every answer (text and
 * sources) so two versions of the code can be compared answer by answer.
 *
 *   deno run -A --v8-flags=--expose-gc bench/answer_delta.ts [--n 200] [--dump out.json]
 */
import process from "node:process";
import { createApp } from "../app.ts";
import { loadCorpus, makeQueries, ms, percentile } from "./corpus.ts";
import { retrieve } from "../lib/answers/retrieve.ts";
import { extractiveAnswer } from "../lib/answers/extractive.ts";
import { askStreamed } from "./summarize.ts";

const arg = (name: string) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : undefined;
};
const n = Number(arg("n") ?? 200);
const dump = arg("dump");
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

const pages = (await loadCorpus()).slice(0, Number(Deno.env.get("BENCH_PAGES") ?? 2000));
const dir = await Deno.makeTempDir();
const kv = await Deno.openKv(`${dir}/bench.kv`);
const { app, services: s } = createApp({
  kv,
  operatorToken: "op_bench",
  log: () => {},
  summaryIpLimitPerMinute: 1e9,
});
const { site, publicKey } = await s.sites.create({ name: "Bench", plan: "enterprise" });
await s.sites.update(site.id, (x) => ({ ...x, limits: { searchesPerMinute: 1e12 } }));
let t = performance.now();
for (const p of pages) await s.pages.upsert(site.id, p, Infinity);
console.log(`${pages.length} pages upserted in ${((performance.now() - t) / 1000).toFixed(1)} s`);
await s.indexes.search(site.id, "warm", 1, 10);
await s.indexes.idle();
const fresh = (await s.sites.get(site.id))!;

// Questions as the summary bench asks them, and bare ones; each asked once (first-seen).
const words = [...new Set(makeQueries(pages, n + 60))].slice(0, n + 20);
const questions = words.map((w, i) => i % 2 ? `What is ${w} and how do I use it?` : `${w}`);
const warm = questions.slice(0, 20), asked = questions.slice(20);
for (const q of warm) {
  const r = await retrieve(s, fresh, q);
  extractiveAnswer(r.question, r.texts);
}
gc();

const rows: { q: string; retrieve: number; compose: number }[] = [];
const out: Record<string, { answer: string; sources: string[] }> = {};
const cpu0 = process.cpuUsage();
for (const q of asked) {
  t = performance.now();
  const r = await retrieve(s, fresh, q);
  const t1 = performance.now();
  const answer = r.matched ? extractiveAnswer(r.question, r.texts) : "(no match)";
  const t2 = performance.now();
  rows.push({ q, retrieve: t1 - t, compose: t2 - t1 });
  out[q] = {
    answer,
    sources: r.texts.map((x) => `${x.n} ${x.heading ?? ""}#${x.anchor ?? ""}`).concat(
      r.refs.map((x) => x.type === "page" ? x.url : ""),
    ),
  };
}
const cpu = process.cpuUsage(cpu0);
const both = rows.map((r) => r.retrieve + r.compose);
const p = (xs: number[]) => `p50 ${ms(percentile(xs, 50))}, p99 ${ms(percentile(xs, 99))}`;
console.log(`retrieve: ${p(rows.map((r) => r.retrieve))}`);
console.log(`compose:  ${p(rows.map((r) => r.compose))}`);
console.log(`both:     ${p(both)}; max ${ms(Math.max(...both))}`);
console.log(
  `CPU per answer (retrieve + compose): ${
    ((cpu.user + cpu.system) / rows.length / 1000).toFixed(2)
  } ms`,
);
for (const r of [...rows].sort((a, b) => b.retrieve - a.retrieve).slice(0, 5)) {
  console.log(`  slow: ${ms(r.retrieve)} + ${ms(r.compose)}  ${JSON.stringify(r.q)}`);
}
if (dump) await Deno.writeTextFile(dump, JSON.stringify(out, null, 1));

// Through HTTP, streamed, other first-seen questions: time to the first delta.
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
const url = `http://127.0.0.1:${server.addr.port}/api/summarize`;
const firsts: number[] = [];
const other = [...new Set(makeQueries(pages, 3 * n).slice(n + 20))].filter((w) =>
  !questions.includes(w)
);
for (const [i, w] of other.slice(0, n + 10).entries()) {
  const a = await askStreamed(url, publicKey, `What is ${w} and how do I use it?`);
  if (i >= 10) firsts.push(a.first);
}
await server.shutdown();
console.log(`first streamed delta over HTTP: ${p(firsts)}`);
s.indexes.discard();
kv.close();
await Deno.remove(dir, { recursive: true });
Deno.exit(0);
