/**
 * Search benchmark: index build, memory, in-process latency, and /api/search
 * under wrk beside the same queries in-process and a bare Deno.serve.
 */
import { createApp } from "../app.ts";
import type { PageInput } from "../lib/sites/pages.ts";
import { loadCorpus, makeQueries, mb, ms, percentile, rng } from "./corpus.ts";
import { haveWrk, wrk } from "./wrk.ts";

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** Tops a corpus up to `n` pages by recombining real paragraphs into new pages. */
function topUp(pages: PageInput[], n: number): PageInput[] {
  const rand = rng(7);
  const out = [...pages];
  for (let i = 0; out.length < n; i++) {
    const a = pages[Math.floor(rand() * pages.length)],
      b = pages[Math.floor(rand() * pages.length)];
    out.push({
      url: `/generated/${i}`,
      title: `${a.title} and ${b.title}`.slice(0, 200),
      body: a.body.slice(0, 3000) + "\n" + b.body.slice(-3000),
    });
  }
  return out;
}

export async function benchSearch(opts: { pages: number; seconds: number }) {
  const corpus = await loadCorpus();
  const pages = corpus.length >= opts.pages
    ? corpus.slice(0, opts.pages)
    : topUp(corpus, opts.pages);
  const real = Math.min(corpus.length, pages.length);
  const textMb = pages.reduce((n, p) => n + p.body.length, 0) / 1048576;
  console.log(
    `\n## Search: ${pages.length} pages (${real} real, ${pages.length - real} recombined), ${
      textMb.toFixed(1)
    } MB of text`,
  );

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
  const ingest = performance.now() - t;
  console.log(
    `KV ingest (admin upsert path): ${(ingest / 1000).toFixed(1)} s, ${
      (pages.length / ingest * 1000).toFixed(0)
    } pages/s`,
  );

  gc();
  const rssBefore = Deno.memoryUsage().rss;
  t = performance.now();
  await s.indexes.search(site.id, "warm", 1, 10); // first use builds the index from KV
  const build = performance.now() - t;
  gc();
  const grown = Deno.memoryUsage().rss - rssBefore;
  console.log(
    `index build from KV: ${(build / 1000).toFixed(2)} s; RSS growth ${mb(grown)}, ${
      mb(grown / pages.length * 1000)
    } per 1,000 pages`,
  );
  // The index's size is what dropping it gives back (heap, and buffers outside the heap);
  // a baseline taken before the build would still hold the ingest's garbage.
  const used = () => {
    gc();
    const m = Deno.memoryUsage();
    return { heap: m.heapUsed, external: m.external, rss: m.rss };
  };
  const withIndex = used();
  s.indexes.drop(site.id);
  const without = used();
  const heap = withIndex.heap - without.heap, external = withIndex.external - without.external;
  console.log(
    `memory held by the index: ${mb(heap + external)} (${mb(heap)} heap + ${
      mb(external)
    } page text outside the heap), ${
      mb((heap + external) / pages.length * 1000)
    } per 1,000 pages; RSS with the index: ${mb(withIndex.rss)}`,
  );
  await s.indexes.search(site.id, "warm", 1, 10); // rebuild for what follows

  const queries = makeQueries(pages, 300);
  // Warm up on every query (JIT), then collect the build's garbage, so the figures are steady state.
  for (const q of queries) await s.indexes.search(site.id, q, 1, 10);
  gc();
  const lat: number[] = [];
  for (let pass = 0; pass < 3; pass++) {
    for (const q of queries) {
      const t0 = performance.now();
      await s.indexes.search(site.id, q, 1, 10);
      lat.push(performance.now() - t0);
    }
  }
  console.log(
    `in-process search (${queries.length} queries x 3, 10 results with highlights): p50 ${
      ms(percentile(lat, 50))
    }, p99 ${ms(percentile(lat, 99))}, max ${ms(Math.max(...lat))}`,
  );

  let n = 0;
  t = performance.now();
  while (performance.now() - t < opts.seconds * 1000) {
    await s.indexes.search(site.id, queries[n++ % queries.length], 1, 10);
  }
  const inProcessRps = n / ((performance.now() - t) / 1000);
  console.log(`in-process rate: ${inProcessRps.toFixed(0)} searches/s (one core, sequential)`);

  if (!(await haveWrk())) {
    console.log("wrk not installed (apt-get install -y wrk): HTTP load figures skipped");
  } else {
    const paths = queries.map((q) => `/api/search?key=${publicKey}&q=${encodeURIComponent(q)}`);
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
    const before = { ...s.quota.stats };
    const api = await wrk(`http://127.0.0.1:${server.addr.port}`, paths, 50, opts.seconds);
    const after = { ...s.quota.stats };
    // The same load with search analytics counting off, then on again: counting is in memory,
    // so neither throughput nor p99 should move (it writes to KV only every few seconds).
    // Rounds alternate so that noise from other processes falls on both sides alike.
    const runs: Record<
      "off" | "on",
      { rps: number; p99: number; errors: number; non2xx: number }[]
    > = { off: [], on: [] };
    const round = Math.max(2, Math.round(opts.seconds / 2));
    for (let i = 0; i < 3; i++) {
      for (const mode of ["off", "on"] as const) {
        s.analytics.enabled = mode === "on";
        runs[mode].push(await wrk(`http://127.0.0.1:${server.addr.port}`, paths, 50, round));
      }
    }
    s.analytics.enabled = true;
    await s.analytics.flush();
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const [off, on] = (["off", "on"] as const).map((m) => ({
      rps: median(runs[m].map((r) => r.rps)),
      p99: median(runs[m].map((r) => r.p99)),
      bad: runs[m].reduce((n, r) => n + r.errors + r.non2xx, 0),
    }));
    // What counting one search costs in itself: a few map updates, no KV.
    const calls = 200_000;
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) s.analytics.search(site.id, queries[i % queries.length], i % 7);
    const perCall = (performance.now() - t0) / calls * 1000;
    s.analytics.discard();
    await server.shutdown();
    const bare = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () => Response.json({ results: [], meta: { found: 0 } }),
    );
    const base = await wrk(`http://127.0.0.1:${bare.addr.port}`, ["/"], 50, opts.seconds);
    await bare.shutdown();
    const admitted = after.admitted - before.admitted;
    const kvOps = (after.batches - before.batches) + (after.commits - before.commits);
    console.log(
      `/api/search under wrk (50 connections, ${opts.seconds} s): ${
        api.rps.toFixed(0)
      } req/s, p50 ${ms(api.p50)}, p99 ${ms(api.p99)}, errors ${api.errors}, non-2xx ${api.non2xx}`,
    );
    console.log(
      `bare Deno.serve, fixed JSON (same settings): ${base.rps.toFixed(0)} req/s, p50 ${
        ms(base.p50)
      }, p99 ${ms(base.p99)}`,
    );
    console.log(
      `ratios: endpoint / in-process = ${
        (api.rps / inProcessRps).toFixed(2)
      }; endpoint / bare Deno.serve = ${(api.rps / base.rps).toFixed(3)}`,
    );
    console.log(
      `analytics counting (median of 3 alternating ${round} s rounds each): off ${
        off.rps.toFixed(0)
      } req/s, p99 ${ms(off.p99)}; on ${on.rps.toFixed(0)} req/s, p99 ${
        ms(on.p99)
      } (errors and non-2xx: ${off.bad + on.bad}); counting one search in memory: ${
        perCall.toFixed(2)
      } µs, no KV round trip`,
    );
    console.log(
      `quota KV work: ${kvOps} KV round trips for ${admitted} admitted searches (${
        (kvOps / Math.max(1, admitted)).toFixed(3)
      } per search; ${after.conflicts - before.conflicts} conflicts)`,
    );
  }
  return {
    app,
    site,
    publicKey,
    pages,
    queries,
    async close() {
      s.analytics.discard();
      kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
