/**
 * First-seen answers in process, 2,000 pages: per question, the CPU and wall time of
 * retrieval (lib/answers/retrieve.ts) and of composing the extractive answer, and the
 * first streamed delta through /api/summarize. `--dump FILE` writes every answer (text and
 * sources) so two versions of the code can be compared answer by answer; `--against DIR`
 * (a checkout of other code, e.g. `git archive main`) answers each question with that code's
 * lib/answers too, alternately on the same index, and counts the answers that differ.
 *
 *   deno run -A --v8-flags=--expose-gc bench/answer_delta.ts [--n 200] [--dump out.json]
 */
import process from "node:process";
import { createApp } from "../app.ts";
import { benchApp, loadCorpus, makeQueries, ms, percentile } from "./corpus.ts";
import { retrieve } from "../lib/answers/retrieve.ts";
import { extractiveAnswer } from "../lib/answers/extractive.ts";
import { askStreamed } from "./summarize.ts";

const arg = (name: string) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : undefined;
};
const n = Number(arg("n") ?? 200);
const against = arg("against");
const dump = arg("dump");
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

const pages = (await loadCorpus()).slice(0, Number(Deno.env.get("BENCH_PAGES") ?? 2000));
const dir = await Deno.makeTempDir();

/** An app of some code (this checkout's `createApp`, or another's) holding the pages. */
async function appOf(make: typeof createApp, name: string) {
  const { app, services: s, kv, site, publicKey } = await benchApp(make, `${dir}/${name}.kv`);
  const t = performance.now();
  for (const p of pages) await s.pages.upsert(site.id, p, Infinity);
  console.log(
    `${name}: ${pages.length} pages upserted in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  await s.indexes.search(site.id, { query: "warm" });
  await s.indexes.idle();
  const close = () => {
    s.indexes.discard();
    kv.close();
  };
  return { app, s, site: (await s.sites.get(site.id))!, publicKey, close };
}
const mine = await appOf(createApp, "this");
const { s, site: fresh } = mine;
let t = performance.now();

// Questions as the summary bench asks them, and bare ones; each asked once (first-seen).
const words = [...new Set(makeQueries(pages, n + 60))].slice(0, n + 20);
const questions = words.map((w, i) => i % 2 ? `What is ${w} and how do I use it?` : `${w}`);
const warm = questions.slice(0, 20), asked = questions.slice(20);
for (const q of warm) {
  const r = await retrieve(s, fresh, q);
  extractiveAnswer(r.question, r.texts);
}
gc();

type Code = { retrieve: typeof retrieve; extractiveAnswer: typeof extractiveAnswer };
const codes: [string, Code][] = [["this", { retrieve, extractiveAnswer }]];
if (against) {
  const other = await import(`${against}/lib/answers/retrieve.ts`);
  const compose = await import(`${against}/lib/answers/extractive.ts`);
  codes.push([against, { retrieve: other.retrieve, extractiveAnswer: compose.extractiveAnswer }]);
  for (const q of warm) {
    const r = await other.retrieve(s, fresh, q);
    compose.extractiveAnswer(r.question, r.texts);
  }
}
type Row = { q: string; retrieve: number; compose: number; cpu: number };
const rows = new Map<string, Row[]>(codes.map(([name]) => [name, []]));
const outs = new Map<string, Record<string, { answer: string; sources: string[] }>>(
  codes.map(([name]) => [name, {}]),
);
const p = (xs: number[]) => `p50 ${ms(percentile(xs, 50))}, p99 ${ms(percentile(xs, 99))}`;
for (const [i, q] of asked.entries()) {
  // Alternate which code goes first, so neither always meets a colder cache.
  for (const [name, code] of i % 2 ? [...codes].reverse() : codes) {
    const cpu0 = process.cpuUsage();
    t = performance.now();
    const r = await code.retrieve(s, fresh, q);
    const t1 = performance.now();
    const answer = r.matched ? code.extractiveAnswer(r.question, r.texts) : "(no match)";
    const t2 = performance.now();
    const cpu = process.cpuUsage(cpu0);
    rows.get(name)!.push({ q, retrieve: t1 - t, compose: t2 - t1, cpu: cpu.user + cpu.system });
    outs.get(name)![q] = {
      answer,
      sources: r.texts.map((x) => `${x.n} ${x.heading ?? ""}#${x.anchor ?? ""}`).concat(
        r.refs.map((x) => x.type === "page" ? x.url : ""),
      ),
    };
  }
}
for (const [name] of codes) {
  const rs = rows.get(name)!;
  const both = rs.map((r) => r.retrieve + r.compose);
  const cpu = rs.reduce((n, r) => n + r.cpu, 0) / rs.length / 1000;
  console.log(`\n${name}: ${rs.length} first-seen questions`);
  console.log(`retrieve: ${p(rs.map((r) => r.retrieve))}`);
  console.log(`compose:  ${p(rs.map((r) => r.compose))}`);
  console.log(`both:     ${p(both)}; max ${ms(Math.max(...both))}`);
  console.log(`CPU per answer (retrieve + compose): ${cpu.toFixed(2)} ms`);
  for (const r of [...rs].sort((a, b) => b.retrieve - a.retrieve).slice(0, 3)) {
    console.log(`  slow: ${ms(r.retrieve)} + ${ms(r.compose)}  ${JSON.stringify(r.q)}`);
  }
}
if (against) {
  const [a, b] = codes.map(([name]) => outs.get(name)!);
  const differ = asked.filter((q) => JSON.stringify(a[q]) !== JSON.stringify(b[q]));
  console.log(`\nanswers that differ between the two: ${differ.length} of ${asked.length}`);
  for (const q of differ.slice(0, 3)) console.log(JSON.stringify({ q, a: a[q], b: b[q] }));
}
if (dump) await Deno.writeTextFile(dump, JSON.stringify(outs.get("this"), null, 1));

if (Deno.args.includes("--no-http")) Deno.exit(0);
// Through HTTP, streamed, other first-seen questions: time to the first delta (alternately on an
// app of the other code, with the same pages, with --against).
const apps = [{ name: "this", ...mine }];
if (against) {
  const make = (await import(`${against}/app.ts`)).createApp as typeof createApp;
  apps.push({ name: against, ...await appOf(make, "other") });
}
const servers = apps.map((a) => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, a.app.fetch);
  return {
    ...a,
    server,
    url: `http://127.0.0.1:${server.addr.port}/api/summarize`,
    firsts: [] as number[],
  };
});
const other = [...new Set(makeQueries(pages, 3 * n).slice(n + 20))].filter((w) =>
  !questions.includes(w)
);
for (const [i, w] of other.slice(0, n + 10).entries()) {
  for (const x of i % 2 ? [...servers].reverse() : servers) {
    const a = await askStreamed(x.url, x.publicKey, `What is ${w} and how do I use it?`);
    if (i >= 10) x.firsts.push(a.first);
  }
}
for (const x of servers) {
  await x.server.shutdown();
  console.log(`${x.name}: first streamed delta over HTTP: ${p(x.firsts)}`);
  x.close();
}
await Deno.remove(dir, { recursive: true });
Deno.exit(0);
