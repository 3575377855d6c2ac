/**
 * glibc's functions the platform tuning calls through FFI, opened once: only on Linux with
 * glibc and where the process may use FFI (`--allow-ffi`, which `deno task start:tuned`
 * grants). Elsewhere (`deno task start`, Deno Deploy, macOS, musl) `libc()` is null and
 * callers do without.
 */

/**
 * What the tuning calls: memory_release.ts (malloc_trim, mallopt), mod.ts (access, for the
 * KV files' probe), background_threads.ts (the rest).
 */
export interface Libc {
  malloc_trim(pad: bigint): number;
  mallopt(param: number, value: number): number;
  /** 0 when `path` (NUL-terminated bytes) may be accessed with `mode`, else -1. */
  access(path: Uint8Array<ArrayBuffer>, mode: number): number;
  /** 0 when thread `tid` now runs under `policy` (its `struct sched_param`: 4 bytes), else -1. */
  sched_setscheduler(tid: number, policy: number, param: Uint8Array<ArrayBuffer>): number;
  opendir(path: Uint8Array<ArrayBuffer>): Deno.PointerValue;
  /** The directory's next `struct dirent64`, null at its end. */
  readdir64(dir: Deno.PointerObject): Deno.PointerValue;
  closedir(dir: Deno.PointerObject): number;
  open(path: Uint8Array<ArrayBuffer>, flags: number): number;
  read(fd: number, buf: Uint8Array<ArrayBuffer>, count: bigint): number | bigint;
  close(fd: number): number;
}

let opened: Libc | null | undefined;

/** glibc, or null where it cannot be called. */
export function libc(): Libc | null {
  if (opened !== undefined) return opened;
  opened = null;
  try {
    if (Deno.build.os !== "linux") return null;
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return null;
    opened = Deno.dlopen("libc.so.6", {
      malloc_trim: { parameters: ["usize"], result: "i32" },
      mallopt: { parameters: ["i32", "i32"], result: "i32" },
      access: { parameters: ["buffer", "i32"], result: "i32" },
      sched_setscheduler: { parameters: ["i32", "i32", "buffer"], result: "i32" },
      opendir: { parameters: ["buffer"], result: "pointer" },
      readdir64: { parameters: ["pointer"], result: "pointer" },
      closedir: { parameters: ["pointer"], result: "i32" },
      open: { parameters: ["buffer", "i32"], result: "i32" },
      read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
      close: { parameters: ["i32"], result: "i32" },
    }).symbols as unknown as Libc;
  } catch {
    // no glibc (musl, another libc), or FFI refused: nothing to call
  }
  return opened;
}
