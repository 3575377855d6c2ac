/**
 * glibc's functions the service calls through FFI, opened once: only on Linux with glibc and
 * where the process may use FFI (`--allow-ffi`, which `deno task start` grants). Elsewhere
 * (Deno Deploy, macOS, musl) `libc()` is null and callers do without.
 */

/** What the service calls: memory_trim.ts (malloc_trim, mallopt), storage (access). */
export interface Libc {
  malloc_trim(pad: bigint): number;
  mallopt(param: number, value: number): number;
  /** 0 when `path` (NUL-terminated bytes) may be accessed with `mode`, else -1. */
  access(path: Uint8Array<ArrayBuffer>, mode: number): number;
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
    }).symbols as unknown as Libc;
  } catch {
    // no glibc (musl, another libc), or FFI refused: nothing to call
  }
  return opened;
}
