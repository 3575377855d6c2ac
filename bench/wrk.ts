/** Drives wrk (Debian's package) at a local URL list and reads its figures back as JSON. */
import { percentile } from "./corpus.ts";

const LUA = `
local paths = {}
for line in io.lines(os.getenv("WRK_PATHS")) do paths[#paths + 1] = line end
-- WRK_EACH (one connection): each request's own latency, from its request() to its response(),
-- on the monotonic clock through LuaJIT's ffi; written to that file when the run ends.
local clock, sent, each = nil, 0, {}
if os.getenv("WRK_EACH") then
  local ok, ffi = pcall(require, "ffi")
  if ok then
    ffi.cdef[[ typedef struct { long s; long ns; } wrk_ts; int clock_gettime(int, wrk_ts *); ]]
    local ts = ffi.new("wrk_ts")
    clock = function() ffi.C.clock_gettime(1, ts); return tonumber(ts.s) * 1e6 + tonumber(ts.ns) / 1e3 end
  end
end
local i = 0
request = function()
  i = i % #paths + 1
  if clock then sent = clock() end
  return wrk.format("GET", paths[i])
end
-- WRK_PAUSE_MS: a visitor's pause before each request, 0.5 to 1.5 times it (paced load).
local pause = tonumber(os.getenv("WRK_PAUSE_MS") or "0")
if pause > 0 then
  delay = function() return math.random(math.floor(pause / 2), math.floor(pause * 3 / 2)) end
end
-- WRK_ONCE: each path asked once (first-seen queries), then the run ends.
if os.getenv("WRK_ONCE") == "1" then
  local got = 0
  response = function()
    if clock then each[#each + 1] = clock() - sent end
    got = got + 1
    if got >= #paths then
      if clock then
        local f = io.open(os.getenv("WRK_EACH"), "w")
        for k = 1, #each do f:write(string.format("%.1f\\n", each[k])) end
        f:close()
      end
      wrk.thread:stop()
      -- wrk's main thread sleeps out the duration: the caller interrupts it on this line.
      io.write("WRKDONE\\n")
      io.flush()
    end
  end
end
done = function(summary, latency, requests)
  io.write(string.format('WRKJSON {"requests":%d,"seconds":%f,"mean":%f,"p50":%f,"p99":%f,"max":%f,"errors":%d,"non2xx":%d}\\n',
    summary.requests, summary.duration / 1e6, latency.mean / 1000, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status))
end
`;

export interface WrkResult {
  rps: number;
  requests: number;
  /**
   * wrk's percentiles. wrk corrects them for coordinated omission: each latency L above twice
   * the mean interval between requests adds phantom samples at L - interval, L - 2 intervals…,
   * as if a client at a fixed rate had been kept waiting. With one connection asking one at a
   * time, a single 6 ms stall so counts a dozen times.
   */
  p50: number;
  p99: number;
  max: number;
  errors: number;
  non2xx: number;
  /** One connection asked once: each request's own latency, no phantom samples added. */
  each?: { p50: number; p99: number };
}

/**
 * Runs wrk with `connections` for `seconds` against origin + each path in turn; with `once`,
 * each path is asked once and the run ends then (at most `seconds`): first-seen queries. With
 * `pauseMs`, each connection pauses about that long before each request (a visitor typing).
 */
export async function wrk(
  origin: string,
  paths: string[],
  connections = 50,
  seconds = 10,
  once = false,
  pauseMs = 0,
): Promise<WrkResult> {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/paths.txt`, paths.join("\n"));
  await Deno.writeTextFile(`${dir}/script.lua`, LUA);
  const child = new Deno.Command("wrk", {
    args: [
      "-t",
      "1",
      "-c",
      String(connections),
      "-d",
      `${seconds}s`,
      "--latency",
      "-s",
      `${dir}/script.lua`,
      origin,
    ],
    env: {
      WRK_PATHS: `${dir}/paths.txt`,
      WRK_ONCE: once ? "1" : "0",
      WRK_PAUSE_MS: String(pauseMs),
      ...(once && connections === 1 ? { WRK_EACH: `${dir}/each.txt` } : {}),
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // SIGINT ends wrk's sleep, and it prints its figures (what a run asked once is done with).
  let text = "";
  const stderr = new Response(child.stderr).text();
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    if (!text.includes("WRKDONE") && (text + chunk).includes("WRKDONE")) child.kill("SIGINT");
    text += chunk;
  }
  await child.status;
  const each = await eachLatency(`${dir}/each.txt`);
  await Deno.remove(dir, { recursive: true });
  const line = text.split("\n").find((l) => l.startsWith("WRKJSON "));
  if (!line) throw new Error("wrk failed: " + await stderr + text);
  const r = JSON.parse(line.slice(8));
  return {
    // A run that ends early (once) still lasts `seconds` for wrk: its connections were each busy
    // for the requests' latencies (Little's law: requests in flight = rate x latency).
    rps: once ? connections / (r.mean / 1000) : r.requests / r.seconds,
    requests: r.requests,
    p50: r.p50,
    p99: r.p99,
    max: r.max,
    errors: r.errors,
    non2xx: r.non2xx,
    each,
  };
}

/** `; each request …` when the run measured them: to print beside wrk's corrected figures. */
export function eachRequest(r: WrkResult): string {
  if (!r.each) return "";
  const [p50, p99] = [r.each.p50.toFixed(2), r.each.p99.toFixed(2)];
  return `; each request as measured, without wrk's correction: p50 ${p50} ms, p99 ${p99} ms`;
}

/** The per-request latencies the script wrote (µs a line), in ms; none without LuaJIT's ffi. */
async function eachLatency(path: string): Promise<WrkResult["each"]> {
  const text = await Deno.readTextFile(path).catch(() => "");
  const ms = text.split("\n").filter(Boolean).map((l) => Number(l) / 1000);
  if (!ms.length) return undefined;
  return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
}

/** True when wrk is installed. */
export async function haveWrk(): Promise<boolean> {
  try {
    await new Deno.Command("wrk", { args: ["--version"], stdout: "null", stderr: "null" }).output();
    return true;
  } catch {
    return false;
  }
}
