/**
 * The HTTP front alone: a cached /api/search answer through our server as main.ts runs it (the
 * `early` hook) and through the app's whole middleware chain, against bare servers (ours and
 * Deno.serve) sending the same bytes. What the parser and connection manager cost
 * shows as the ratio to bare Deno.serve, and as CPU time per request (which, unlike requests per
 * second, holds still on a machine shared with other work). Runs alone (`deno run -A bench/front.ts`) or from
 * run.ts; FRONT_SECONDS per run, FRONT_ROUNDS rounds interleaved (the median is kept).
 */
import process from "node:process";
import { createApp } from "../app.ts";
import { serveHttp } from "../lib/http/server/mod.ts";
import { haveWrk, wrk } from "./wrk.ts";
import { benchApp } from "./corpus.ts";

/** Requests per second of the three servers, and the ratios the issue asks for. */
export async function benchFront(seconds = 5, rounds = 3) {
  if (!(await haveWrk())) return console.log("\n(HTTP front skipped: apt-get install -y wrk)");
  const { app, services: s, early, kv, site, publicKey } = await benchApp(
    createApp,
    ":memory:",
    "Front",
  );
  const words = ["configuration", "install", "cache", "server", "widget", "index", "token"];
  for (let i = 0; i < 50; i++) {
    const body = Array.from({ length: 200 }, (_, j) => words[(i * 7 + j * 3) % words.length]);
    await s.pages.upsert(
      site.id,
      { url: `/p/${i}`, title: `Page ${i}`, body: body.join(" ") },
      1e9,
    );
  }
  const path = `/api/search?key=${publicKey}&q=configuration`;
  const hit = await app.fetch(new Request(`http://127.0.0.1${path}`));
  const bytes = new Uint8Array(await hit.arrayBuffer());
  const same = () => new Response(bytes, { headers: { "Content-Type": "application/json" } });
  const runs: Record<string, number[]> = { early: [], app: [], ours: [], deno: [] };
  const cpu: Record<string, number[]> = { early: [], app: [], ours: [], deno: [] };
  const measure = async (
    name: string,
    start: () => { addr: Deno.NetAddr; shutdown(): Promise<void> },
    p: string,
  ) => {
    const server = start();
    const origin = `http://127.0.0.1:${server.addr.port}`;
    await wrk(origin, [p], 8, 1); // the JIT warms up on this server's path
    const before = process.cpuUsage(); // this process only: wrk runs in its own
    const run = await wrk(origin, [p], 50, seconds);
    const used = process.cpuUsage(before);
    runs[name].push(run.rps);
    cpu[name].push((used.user + used.system) / run.requests);
    await server.shutdown();
  };
  const quiet = { hostname: "127.0.0.1", port: 0 };
  // wrk's 50 connections come from one address: lift the per-address cap, as for a proxy.
  const lifted = { ...quiet, maxConnectionsPerIp: 1000 };
  for (let r = 0; r < rounds; r++) {
    await measure("early", () => serveHttp({ ...lifted, early }, app.fetch), path);
    await measure("app", () => serveHttp(lifted, app.fetch), path);
    await measure("ours", () => serveHttp(lifted, same), "/");
    await measure("deno", () => Deno.serve({ ...quiet, onListen() {} }, same), "/");
  }
  await s.close();
  kv.close();
  const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
  const [fast, app_, ours, deno] = ["early", "app", "ours", "deno"].map((k) => median(runs[k]));
  const us = (k: string) => median(cpu[k]).toFixed(1);
  console.log(
    `\n## HTTP front: a cached answer of ${bytes.byteLength} bytes, 50 connections, median of ${rounds} x ${seconds} s
  our server + app: as served (early hook) ${fast.toFixed(0)} req/s, whole middleware chain ${
      app_.toFixed(0)
    }; bare: our server ${ours.toFixed(0)}, Deno.serve ${deno.toFixed(0)} req/s
  cached answer / bare Deno.serve ${(fast / deno).toFixed(2)} (whole chain ${
      (app_ / deno).toFixed(2)
    }); our bare server / bare Deno.serve ${(ours / deno).toFixed(2)}
  server CPU per request: as served ${us("early")} µs, whole chain ${
      us("app")
    } µs; bare: our server ${us("ours")} µs, Deno.serve ${us("deno")} µs`,
  );
}

if (import.meta.main) {
  await benchFront(
    Number(Deno.env.get("FRONT_SECONDS") ?? 5),
    Number(Deno.env.get("FRONT_ROUNDS") ?? 3),
  );
}
