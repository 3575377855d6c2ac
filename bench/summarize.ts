/** Summary benchmark: time to first delta and total time of streamed extractive answers. */
import process from "node:process";
import type { Hono } from "hono";
import type { AppEnv } from "../lib/http/middleware.ts";
import { ms, percentile } from "./corpus.ts";

/** One streamed answer: its text, page sources in order, and time to the first delta. */
export async function askStreamed(url: string, key: string, query: string) {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-API-Key": key },
    body: JSON.stringify({ query, stream: true }),
  });
  let first = 0, text = "";
  const decoder = new TextDecoder();
  for await (const chunk of res.body!) {
    text += decoder.decode(chunk, { stream: true });
    if (!first && text.includes("event: delta")) first = performance.now() - t0;
  }
  const data = (event: string) => {
    const line = text.split(`event: ${event}\ndata: `)[1]?.split("\n")[0];
    return line ? JSON.parse(line) : null;
  };
  const meta = data("meta"), done = data("done");
  const sources = (done?.sources ?? meta?.sources ?? []) as { type: string; url?: string }[];
  return {
    answer: String(done?.answer ?? ""),
    sources: sources.filter((s) => s.type === "page").map((s) => String(s.url)),
    first: first || performance.now() - t0,
  };
}

export async function benchSummarize(
  app: Hono<AppEnv>,
  publicKey: string,
  queries: string[],
  n = 100,
) {
  console.log(`\n## Summaries: ${n} streamed extractive answers on the same corpus`);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const url = `http://127.0.0.1:${server.addr.port}/api/summarize`;
  const firstDelta: number[] = [], total: number[] = [], sizes: number[] = [];
  let cpu = process.cpuUsage();
  for (let i = 0; i < n + 10; i++) {
    if (i === 10) cpu = process.cpuUsage(); // after the warm-up
    const query = `What is ${queries[i % queries.length]} and how do I use it?`;
    const t0 = performance.now();
    const a = await askStreamed(url, publicKey, query);
    if (i < 10) continue; // warm-up
    firstDelta.push(a.first);
    total.push(performance.now() - t0);
    sizes.push(a.answer.length);
  }
  const used = process.cpuUsage(cpu);
  await server.shutdown();
  console.log(
    `first delta: p50 ${ms(percentile(firstDelta, 50))}, p99 ${ms(percentile(firstDelta, 99))}`,
  );
  console.log(`whole answer: p50 ${ms(percentile(total, 50))}, p99 ${ms(percentile(total, 99))}`);
  console.log(
    `CPU per answer (server and client, one process): ${
      ((used.user + used.system) / n / 1000).toFixed(2)
    } ms`,
  );
  console.log(
    `answer length: median ${percentile(sizes, 50)} characters, max ${Math.max(...sizes)}`,
  );
}
