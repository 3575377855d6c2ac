/**
 * main.ts run as its own process for the benchmarks (bench/loadtest.ts, bench/search.ts): on
 * port 0 of 127.0.0.1 with a given KV file and worker count, its URL read from what it prints.
 */
import { TUNED_V8_FLAGS } from "../lib/runtime_flags.ts";

export interface Server {
  origin: string;
  pid: number;
  stop(): Promise<void>;
}

export interface ServerOptions {
  workers: number;
  kvPath: string;
  /** Replaces `run -A --v8-flags=<V8_FLAGS> main.ts` (e.g. to profile the server). */
  args?: string[];
  /** More environment for the server (operator token, limits, budget). */
  env?: Record<string, string>;
  /** A file the server's access log is appended to (else it is read and dropped). */
  log?: string;
  /** The checkout whose main.ts runs (another tree's, to compare code): this one by default. */
  dir?: string;
}

/** Runs main.ts and waits for the URL it prints. */
export async function startServer(o: ServerOptions): Promise<Server> {
  const child = new Deno.Command(Deno.execPath(), {
    // The flags `deno task start:tuned` runs with (gc exposed among them, so
    // /api/admin/stats?gc=1 can also tell live memory from garbage after a run).
    args: o.args ?? ["run", "-A", `--v8-flags=${TUNED_V8_FLAGS}`, "main.ts"],
    cwd: o.dir ?? new URL("../", import.meta.url).pathname,
    env: {
      PORT: "0",
      HOSTNAME: "127.0.0.1",
      KV_PATH: o.kvPath,
      WORKERS: String(o.workers),
      OPENAI_API_KEY: "",
      // wrk's connections all come from one address, like a proxy's: the per-address cap is lifted.
      MAX_CONNECTIONS_PER_IP: "1000",
      PLATFORM_TUNING: "on",
      ...o.env,
    },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!/http:\/\/127\.0\.0\.1:\d+/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error("main.ts exited before it printed its URL:\n" + out);
    out += value;
  }
  // Keep draining stdout (the access log) so the server never blocks on a full pipe.
  const log = o.log ? await Deno.open(o.log, { write: true, create: true, append: true }) : null;
  (async () => {
    const encoder = new TextEncoder();
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      if (log) await log.write(encoder.encode(r.value));
    }
  })().catch(() => {}).finally(() => log?.close());
  return {
    origin: /http:\/\/127\.0\.0\.1:\d+/.exec(out)![0],
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** Resident memory of a process and its children (the workers), in MB, from /proc. */
export function rssMb(pid: number): number {
  const pids = [pid];
  try {
    const children = Deno.readTextFileSync(`/proc/${pid}/task/${pid}/children`).trim();
    if (children) pids.push(...children.split(/\s+/).map(Number));
  } catch { /* no children file: one process */ }
  let kb = 0;
  for (const p of pids) {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(Deno.readTextFileSync(`/proc/${p}/status`));
      kb += m ? Number(m[1]) : 0;
    } catch { /* gone */ }
  }
  return kb / 1024;
}

/** A process's resident memory now (VmRSS) and its peak since it started (VmHWM), in MB. */
export function procMemory(pid: number): { rss: number; peak: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}
