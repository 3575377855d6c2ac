/**
 * Tuning for Linux with glibc, off unless the operator asks for it (PLATFORM_TUNING=on, and
 * the permissions `deno task start:tuned` grants): forced collections after large drops
 * (`--expose-gc`), glibc's malloc_trim once indexes stop coming and going, V8's background
 * threads under SCHED_IDLE, and KV files probed without a write (access(2)). Each needs
 * `--allow-ffi` or V8's gc, a door out of Deno's sandbox in a process that parses what it
 * crawls, so nothing else in the service imports this: main.ts alone wires it in.
 * What each is worth, measured, is in BENCHMARKS.md; docs/architecture.md says what each does.
 */
import { libc } from "./libc.ts";
import { yieldBackgroundThreads } from "./background_threads.ts";
import { collectingRelease, trimAfterChurn } from "./memory_release.ts";
import { useMemoryRelease } from "../memory_release.ts";
import type { WritableProbe } from "../storage/kv_retry.ts";

/** What main.ts tells the tuning of the process it runs in. */
export interface TuningOptions {
  /** Indexes opened and evicted so far (a trim waits until it stops changing). */
  churn: () => number;
  /** Whether V8's threads may give way: the service's processes leave them a core. */
  spareCore: boolean;
}

/** What tuning could turn on here, with what it needs that the process lacks. */
export interface Tuning {
  on: string[];
  missing: string[];
}

/** access(2)'s mode: may the file be written. */
const W_OK = 2;

/** A KV file probed without touching it, where glibc can be called (kv_retry.ts). */
export const writableProbe: WritableProbe = (path) => {
  const c = libc();
  if (!c) return null;
  const name = new TextEncoder().encode(path + "\0");
  return () => c.access(name, W_OK) === 0;
};

/** V8's gc, where the process exposes it (`--expose-gc`). */
const gc = () => (globalThis as { gc?: () => void }).gc;

/** A full collection now, where V8's gc is exposed; whether one ran (/api/admin/stats?gc=1). */
export function collectGarbage(): boolean {
  const collect = gc();
  collect?.();
  return collect !== undefined;
}

/** Turns on what this process can do of the tuning; says what it turned on and what it lacks. */
export function startTuning({ churn, spareCore }: TuningOptions): Tuning {
  const on: string[] = [], missing: string[] = [];
  const release = collectingRelease();
  useMemoryRelease(release);
  if (release) on.push("forced collections");
  else missing.push("--v8-flags=--expose-gc");
  if (libc()) {
    trimAfterChurn(churn);
    on.push("malloc_trim", "KV files probed by access(2)");
    if (spareCore) yieldBackgroundThreads(), on.push("V8 threads under SCHED_IDLE");
  } else missing.push("--allow-ffi (Linux with glibc)");
  return { on, missing };
}
