/**
 * V8's worker threads (concurrent compilation and marking, parallel scavenging) run under
 * Linux's SCHED_IDLE policy, so a thread that serves a request, or a client on the same
 * machine, takes their CPU the moment it wakes. At normal priority a compile or marking job
 * kept the CPU a waking client had been placed on for up to 4 ms while the other core sat
 * idle, which made most of the slowest requests over many sites.
 * V8 needs little of their time: when they lag, a collection finishes on the main thread and
 * optimized code comes a little later. But they must get some: `main.ts` asks for this only
 * where its processes leave them a core (with one busy process per core they starved).
 *
 * The threads are found in /proc/self/task through libc, as Deno grants reading /proc only
 * with --allow-all. Only Linux with glibc and FFI (`deno task start:tuned`); elsewhere nothing.
 */
import { type Libc, libc } from "./libc.ts";

const SCHED_IDLE = 5;
/** V8's platform workers as /proc names them (a thread's name is cut to 15 bytes). */
const V8_WORKER = "V8 DefaultWorke";
/** Where glibc's `struct dirent64` holds the entry's name (x86-64 and arm64 alike). */
const DIRENT_NAME = 19;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const cString = (s: string) => encoder.encode(s + "\0");

/** The thread ids of this process. */
function threads(c: Libc): number[] {
  const dir = c.opendir(cString("/proc/self/task"));
  if (dir === null) return [];
  const out: number[] = [];
  try {
    for (let e = c.readdir64(dir); e !== null; e = c.readdir64(dir)) {
      const name = new Deno.UnsafePointerView(e).getCString(DIRENT_NAME);
      if (/^\d+$/.test(name)) out.push(Number(name));
    }
  } finally {
    c.closedir(dir);
  }
  return out;
}

/** A thread's name, "" when it cannot be read. */
function threadName(c: Libc, tid: number): string {
  const fd = c.open(cString(`/proc/self/task/${tid}/comm`), 0);
  if (fd < 0) return "";
  const buf = new Uint8Array(32);
  const n = Number(c.read(fd, buf, BigInt(buf.length)));
  c.close(fd);
  return n > 0 ? decoder.decode(buf.subarray(0, n)).trim() : "";
}

/** Puts the process's V8 worker threads under SCHED_IDLE (one that refuses keeps its policy). */
export function yieldBackgroundThreads() {
  const c = libc();
  if (!c) return;
  // struct sched_param: its priority, which SCHED_IDLE requires to be 0.
  const param = new Uint8Array(4);
  for (const tid of threads(c)) {
    if (threadName(c, tid) === V8_WORKER) c.sched_setscheduler(tid, SCHED_IDLE, param);
  }
}
