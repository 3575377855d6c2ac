/**
 * The HTTP front black-box, as issue 30 measures it: main.ts started as the README says (its
 * own process), every corpus page upserted into one site through the admin API, then wrk (50
 * connections) on one repeated query, against a bare `Deno.serve` in another process sending
 * the same bytes (bench/bare_server.ts). Rounds alternate between the servers so the machine's
 * other work falls on each alike; each server's CPU time per request is read from /proc (it
 * holds still where requests per second swing). FRONT_BASE=/other/checkout runs that tree's
 * main.ts too, in the same rounds, to compare code.
 *
 * `deno run -A bench/front_box.ts`, or from run.ts (FRONT_SECONDS per run, 10; FRONT_ROUNDS,
 * 3; FRONT_QUERY, "configuration"; FRONT_PAGES, every corpus page).
 */
import { loadCorpus } from "./corpus.ts";
import { createSite, OPERATOR, putPages } from "./memory.ts";
import { type Server, startServer } from "./server.ts";
import { haveWrk, wrk } from "./wrk.ts";

const env = (name: string) => Deno.env.get(name);
const SECONDS = Number(env("FRONT_SECONDS") ?? 10);
const ROUNDS = Number(env("FRONT_ROUNDS") ?? 3);
const QUERY = env("FRONT_QUERY") ?? "configuration";
const PAGES = Number(env("FRONT_PAGES") ?? Infinity);
const TICK_US = 1e6 / 100; // /proc/<pid>/stat counts CPU time in USER_HZ ticks (100 on Linux)

/** User + system CPU time a process has used, in µs. */
function cpuUs(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * TICK_US; // utime and stime: fields 14 and 15
}

interface Target {
  name: string;
  origin: string;
  pid: number;
  path: string;
  stop(): Promise<void>;
  rps: number[];
  cpu: number[];
  p99: number[];
}

/** main.ts of `dir` with the corpus in one site: its cached query's path and bytes. */
async function mainTs(name: string, dir: string | undefined, kvDir: string, pages: unknown[]) {
  const server: Server = await startServer({
    workers: 1,
    kvPath: `${kvDir}/${name}.kv`,
    dir,
    env: { SITESEARCH_OPERATOR_TOKEN: OPERATOR },
  });
  const site = await createSite(server.origin, "Front");
  await putPages(server.origin, site.id, pages as never, 500);
  const path = `/api/search?key=${site.publicKey}&q=${encodeURIComponent(QUERY)}`;
  const res = await fetch(server.origin + path);
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (res.status !== 200) {
    throw new Error(`${name}: ${res.status} ${new TextDecoder().decode(bytes)}`);
  }
  return { server, path, bytes };
}

/** bench/bare_server.ts in its own process, sending `bytes` (its file kept in `kvDir`). */
export async function bare(bytes: Uint8Array, kvDir: string) {
  const file = `${kvDir}/answer.json`;
  await Deno.writeFile(file, bytes);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./bare_server.ts", import.meta.url).pathname, file],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!/http:\/\/\S+:\d+/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error("bare server exited:\n" + out);
    out += value;
  }
  reader.releaseLock();
  return {
    origin: /http:\/\/\S+:\d+/.exec(out)![0],
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await child.stdout.cancel().catch(() => {});
    },
  };
}

/** The figure: main.ts's cached answer against a bare Deno.serve, each its own process. */
export async function benchFrontBox() {
  if (!(await haveWrk())) {
    return console.log("\n(HTTP front black-box skipped: apt-get install -y wrk)");
  }
  const corpus = (await loadCorpus()).slice(0, PAGES);
  if (!corpus.length) return console.log("\n(HTTP front black-box skipped: no corpus)");
  const kvDir = await Deno.makeTempDir({ prefix: "sitesearch-front-" });
  const targets: Target[] = [];
  const make = (name: string, t: Omit<Target, "name" | "rps" | "cpu" | "p99">) =>
    targets.push({ name, ...t, rps: [], cpu: [], p99: [] });
  try {
    const trees: [string, string | undefined][] = [["main.ts (this tree)", undefined]];
    const base = env("FRONT_BASE");
    if (base) trees.push([`main.ts (${base})`, base]);
    let bytes: Uint8Array | undefined;
    for (const [name, dir] of trees) {
      const m = await mainTs(targets.length ? "base" : "this", dir, kvDir, corpus);
      bytes ??= m.bytes;
      make(name, { origin: m.server.origin, pid: m.server.pid, path: m.path, stop: m.server.stop });
    }
    const b = await bare(bytes!, kvDir);
    make("bare Deno.serve", { ...b, path: "/" });
    for (const t of targets) await wrk(t.origin, [t.path], 8, 2); // the JIT warms up
    for (let r = 0; r < ROUNDS; r++) {
      for (const t of targets) {
        const before = cpuUs(t.pid);
        const run = await wrk(t.origin, [t.path], 50, SECONDS);
        t.cpu.push((cpuUs(t.pid) - before) / run.requests);
        t.rps.push(run.rps);
        t.p99.push(run.p99);
        if (run.errors || run.non2xx) console.log(`${t.name}: ${run.errors + run.non2xx} errors`);
      }
    }
    const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
    const deno = median(targets.at(-1)!.rps);
    console.log(
      `\n## HTTP front, black-box: a repeated query ("${QUERY}", ${
        bytes!.byteLength
      } bytes) of a ` +
        `${corpus.length}-page site, wrk 50 connections, median of ${ROUNDS} x ${SECONDS} s ` +
        `(load ${Deno.loadavg().map((x) => x.toFixed(2)).join(" ")})`,
    );
    for (const t of targets) {
      console.log(
        `  ${t.name}: ${median(t.rps).toFixed(0)} req/s (${
          t.rps.map((x) => x.toFixed(0)).join(", ")
        }), ${(median(t.rps) / deno).toFixed(2)} x bare Deno.serve; server CPU ${
          median(t.cpu).toFixed(1)
        } µs a request; p99 ${median(t.p99).toFixed(2)} ms`,
      );
    }
  } finally {
    for (const t of targets) await t.stop();
    await Deno.remove(kvDir, { recursive: true });
  }
}

if (import.meta.main) await benchFrontBox();
