/**
 * Tail benchmark (issue 30): what the slow searches are. main.ts runs as README starts it (its
 * V8 flags, plus `--trace-gc`), the corpus is upserted over HTTP into one site, and once the
 * pass after the ingest is done, first-seen real queries are asked one at a time over
 * keep-alive. Each request's client interval is set beside the collections the server traced
 * (their clock found from a forced collection, `/api/admin/stats?gc=1`), so each slow request
 * (over TAIL_SLOW_MS, 3) is told apart: a scavenge, a mark-compact, or the search's own work
 * (the access log's `ms`). Then the same queries' successors under wrk's 50 connections.
 *
 * `deno run -A bench/tail.ts`; TAIL_SEMI=16 runs the server with `--max-semi-space-size=16`;
 * TAIL_SERVER_DIR=/path runs another checkout's main.ts; TAIL_QUERIES (2000) sets the count.
 */
import { loadCorpus, percentile } from "./corpus.ts";
import { indexQueries } from "./index_queries.ts";
import { procMemory, startServer } from "./server.ts";
import { call, createSite, OPERATOR, putPages } from "./memory.ts";
import { eachRequest, haveWrk, wrk, type WrkResult } from "./wrk.ts";
import { TUNED_V8_FLAGS } from "../lib/runtime_flags.ts";

const env = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);
const SLOW_MS = env("TAIL_SLOW_MS", 3);
const QUERIES = env("TAIL_QUERIES", 2000);
const SEMI = Deno.env.get("TAIL_SEMI");
const SERVER_DIR = Deno.env.get("TAIL_SERVER_DIR");
/** More V8 flags for the server (e.g. `--minor-ms`), comma-separated. */
const EXTRA = Deno.env.get("TAIL_V8");

/** One collection as `--trace-gc` prints it: when (the isolate's ms), kind, pause. */
interface Gc {
  at: number;
  kind: string;
  ms: number;
  reason: string;
}

const TRACE =
  /\]\s+([\d.]+) ms: (Scavenge|Mark-Compact|Mark-Sweep|Minor Mark-Sweep|Mark-Compact \(reduce\))[^,]*,(?: pooled: [\d.]+ MB,)? ([\d.]+) \/ [\d.]+ ms.*?\)\s*(.*)$/;

function readTrace(text: string): Gc[] {
  const out: Gc[] = [];
  for (const line of text.split("\n")) {
    const m = TRACE.exec(line);
    if (m) out.push({ at: Number(m[1]), kind: m[2], ms: Number(m[3]), reason: m[4].trim() });
  }
  return out;
}

const now = () => performance.timeOrigin + performance.now();
const f2 = (x: number) => x.toFixed(2);

if (import.meta.main) {
  const corpus = await loadCorpus();
  const real = await indexQueries();
  if (!corpus.length || real.length < QUERIES + 4200) {
    console.log("(no corpus or back-of-book indexes: apt-get install the doc packages)");
    Deno.exit(0);
  }
  const flags = SEMI
    ? TUNED_V8_FLAGS.replace(/--max-semi-space-size=\d+/, "") + ","
    : TUNED_V8_FLAGS + ",";
  const v8 = `${flags}${SEMI ? `--max-semi-space-size=${SEMI},` : ""}${
    EXTRA ? EXTRA + "," : ""
  }--trace-gc`
    .replace(/,,+/g, ",");
  const dir = await Deno.makeTempDir({ prefix: "sitesearch-tail-" });
  const log = `${dir}/server.log`;
  console.log(`\n## Tail: ${corpus.length} pages over HTTP, then first-seen queries (${v8})`);
  const server = await startServer({
    workers: 1,
    kvPath: `${dir}/kv.sqlite`,
    dir: SERVER_DIR,
    args: ["run", "-A", `--v8-flags=${v8}`, "main.ts"],
    log,
    env: { SITESEARCH_OPERATOR_TOKEN: OPERATOR },
  });
  try {
    const { origin, pid } = server;
    const site = await createSite(origin, "Tail");
    await putPages(origin, site.id, corpus, 500);
    const path = (q: string) => `/api/search?key=${site.publicKey}&q=${encodeURIComponent(q)}`;
    const get = async (p: string) => {
      const t0 = now();
      const res = await fetch(origin + p);
      await res.arrayBuffer();
      return [t0, now()] as [number, number];
    };
    await get(path("warm"));
    // The pass after the ingest, its save and the collections after it: done before measuring.
    await new Promise((r) => setTimeout(r, 8_000));
    for (const q of real.slice(0, 200)) await get(path(q)); // the JIT, on this path
    // The server's trace clock: a forced collection inside a known interval, thrice.
    const marks: [number, number][] = [];
    for (let i = 0; i < 3; i++) {
      const a = now();
      await (await call(origin, "/api/admin/stats?gc=1")).arrayBuffer();
      marks.push([a, now()]);
      await new Promise((r) => setTimeout(r, 50));
    }
    const asked = real.slice(200, 200 + QUERIES);
    const times: [number, number][] = [];
    const rssBefore = procMemory(pid).rss;
    for (const q of asked) times.push(await get(path(q)));
    const rssAfter = procMemory(pid).rss;
    let load: WrkResult | undefined, seq: WrkResult | undefined;
    if (await haveWrk()) {
      // The issue's figures: wrk one at a time, then 50 connections, each on queries of its own.
      const next = (n: number) => real.slice(200 + QUERIES + (seq ? 2000 : 0)).slice(0, n);
      seq = await wrk(origin, next(2000).map(path), 1, 10, true);
      load = await wrk(origin, next(4000).map(path), 50, 8, true);
    }
    const stats = await (await call(origin, "/api/admin/stats")).json();
    await server.stop(); // its trace is flushed as it ends
    await new Promise((r) => setTimeout(r, 300)); // and copied to the log
    // The access log's lines and the trace's share one pipe: a line of one may cut the other's.
    const text = await Deno.readTextFile(log);
    const entries = /\{"time":[^{}\n]*\}\n?/g;
    const gcs = readTrace(text.replace(entries, ""));
    // The access log's `ms` of each timed search (the ones after the three marks, in order).
    const served: number[] = [];
    let seen = 0;
    for (const [l] of text.matchAll(entries)) {
      const e = JSON.parse(l);
      if (e.path === "/api/admin/stats") seen++;
      else if (seen >= 3 && e.path === "/api/search" && served.length < QUERIES) served.push(e.ms);
    }
    // Forced ones, in order: the three marks are the last three "testing" before the queries.
    const forced = gcs.filter((g) => /testing/.test(g.reason));
    const fm = forced.slice(-3);
    // `--trace-gc` prints the isolate's whole ms as a collection ends: just before the answer.
    const offsets = fm.map((g, i) => marks[i][1] - 0.5 - g.at);
    const offset = offsets.sort((a, b) => a - b)[1] ?? offsets[0];
    const lat = times.map(([a, b]) => b - a);
    const from = times[0][0], to = times[times.length - 1][1];
    const inRun = gcs.filter((g) => g.at + offset >= from && g.at + offset - g.ms <= to);
    const during = (a: number, b: number) =>
      inRun.filter((g) => g.at + offset - g.ms < b + 0.3 && g.at + offset > a - 0.3);
    const slow = times.filter(([a, b]) => b - a > SLOW_MS);
    const kinds = new Map<string, { n: number; ms: number[] }>();
    let withGc = 0, gcInSlow = 0, searchSlow = 0;
    for (const [i, [a, b]] of times.entries()) {
      if (b - a <= SLOW_MS) continue;
      const hit = during(a, b);
      if (hit.length) withGc++;
      else if ((served[i] ?? 0) > SLOW_MS - 0.5) searchSlow++;
      for (const g of hit) {
        const k = kinds.get(g.kind) ?? { n: 0, ms: [] };
        k.n++, k.ms.push(g.ms), gcInSlow += g.ms;
        kinds.set(g.kind, k);
      }
    }
    const all = new Map<string, number[]>();
    for (const g of inRun) all.set(g.kind, [...(all.get(g.kind) ?? []), g.ms]);
    console.log(
      `one at a time, keep-alive, ${asked.length} first-seen: p50 ${f2(percentile(lat, 50))} ms, ` +
        `p99 ${f2(percentile(lat, 99))} ms, max ${f2(Math.max(...lat))} ms (target p99 ≤ 3); ` +
        `in the app (access log) p50 ${f2(percentile(served, 50))}, p99 ${
          f2(percentile(served, 99))
        } ms; ` +
        `RSS ${rssBefore.toFixed(0)} → ${rssAfter.toFixed(0)} MB; clock marks ±${
          f2(Math.max(...marks.map(([a, b]) => (b - a) / 2)))
        } ms`,
    );
    for (const [kind, ms] of all) {
      console.log(
        `  collections during the run: ${ms.length} ${kind}, ${
          f2(percentile(ms, 50))
        } ms median, ` +
          `${f2(Math.max(...ms))} max, ${f2(ms.reduce((x, y) => x + y, 0))} ms in all (one every ${
            (asked.length / ms.length).toFixed(0)
          } searches)`,
      );
    }
    console.log(
      `  ${slow.length} requests over ${SLOW_MS} ms: ${withGc} overlap a collection (${
        f2(gcInSlow)
      } ms of pauses in them); ${
        [...kinds].map(([k, v]) => `${v.n} ${k} (median ${f2(percentile(v.ms, 50))} ms)`).join(
          ", ",
        )
      }; of the other ${
        slow.length - withGc
      }, ${searchSlow} took that long in the app (access log)`,
    );
    if (seq) {
      console.log(
        `wrk, one connection, 2,000 first-seen: p50 ${f2(seq.p50)} ms, p99 ${f2(seq.p99)} ms, max ${
          f2(seq.max)
        } ms${eachRequest(seq)} (target p99 ≤ 3)`,
      );
    }
    if (load) {
      console.log(
        `wrk, 50 connections, 4,000 first-seen: p50 ${f2(load.p50)} ms, p99 ${f2(load.p99)} ms, ${
          load.rps.toFixed(0)
        } req/s (target p99 ≤ 30)`,
      );
    }
    console.log(`server: ${JSON.stringify(stats.memory)}`);
  } finally {
    await server.stop().catch(() => {}); // stopped already unless the run failed
    if (!Deno.env.get("TAIL_KEEP")) await Deno.remove(dir, { recursive: true });
    else console.log(`kept ${dir}`);
  }
}
