/**
 * The one way to write KV: a write that loses SQLite's lock to another process on the
 * same file ("database is locked") is retried; a store that cannot keep what it is given
 * (disk I/O error, read-only or immutable file, file deleted) answers 503 before a write
 * would be lost or, with an immutable shared-memory file, crash the process.
 */
import { ApiError, busy, isLocked, isStorageFault, storageUnavailable } from "../http/errors.ts";

export { isLocked, isStorageFault, storageUnavailable };

/** KV file of each local KV, for the health probe before every write. */
const files = new WeakMap<Deno.Kv, string>();

/** Notes the file a KV was opened from, so writes check it is still there and writable. */
export function registerKvFile(kv: Deno.Kv, path: string) {
  if (path !== ":memory:" && !path.includes("://")) files.set(kv, path);
}

/**
 * Throws a 503 unless the KV's files are all still there and writable. utime fails on a
 * deleted file (NotFound), an immutable one (EPERM) and a read-only mount (EROFS); it never
 * opens the file, so SQLite's POSIX locks on it stay untouched.
 */
export function checkKvFile(kv: Deno.Kv) {
  const path = files.get(kv);
  if (!path) return;
  const now = new Date();
  for (const file of [path, path + "-wal", path + "-shm"]) {
    try {
      Deno.utimeSync(file, now, now);
    } catch (err) {
      // The WAL files come and go with connections; only the database itself must exist.
      if (file !== path && err instanceof Deno.errors.NotFound) continue;
      throw storageUnavailable(err);
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs one KV write: retried while the file is locked, a 503 when the store is failing. */
export async function kvWrite<T>(
  kv: Deno.Kv,
  write: () => Promise<T>,
  busyMessage = "Storage is busy. Retry.",
): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt++) {
    checkKvFile(kv);
    try {
      const out = await write();
      checkKvFile(kv); // deleted or frozen while writing: the write may be gone
      return out;
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (isStorageFault(err)) throw storageUnavailable(err);
      if (!isLocked(err)) throw err;
      await sleep(Math.min(50, 2 + attempt) * (0.5 + Math.random()));
    }
  }
  throw busy(busyMessage);
}

type Step = (op: Deno.AtomicOperation) => void;

/** An atomic operation that records its steps, so each retry commits a fresh one. */
class RetryingAtomic {
  #steps: Step[] = [];
  constructor(private kv: Deno.Kv) {}
  #add(step: Step) {
    this.#steps.push(step);
    return this;
  }
  check(...checks: Deno.AtomicCheck[]) {
    return this.#add((op) => op.check(...checks));
  }
  mutate(...mutations: Deno.KvMutation[]) {
    return this.#add((op) => op.mutate(...mutations));
  }
  sum(key: Deno.KvKey, n: bigint) {
    return this.#add((op) => op.sum(key, n));
  }
  min(key: Deno.KvKey, n: bigint) {
    return this.#add((op) => op.min(key, n));
  }
  max(key: Deno.KvKey, n: bigint) {
    return this.#add((op) => op.max(key, n));
  }
  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) {
    return this.#add((op) => op.set(key, value, options));
  }
  delete(key: Deno.KvKey) {
    return this.#add((op) => op.delete(key));
  }
  enqueue(value: unknown, options?: Parameters<Deno.AtomicOperation["enqueue"]>[1]) {
    return this.#add((op) => op.enqueue(value, options));
  }
  commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    return kvWrite(this.kv, () => {
      const op = this.kv.atomic();
      for (const step of this.#steps) step(op);
      return op.commit();
    });
  }
}

const wrapped = new WeakSet<Deno.Kv>();

/**
 * The KV every store uses: set, delete, enqueue and atomic commits go through kvWrite;
 * reads and everything else are the KV's own.
 */
export function resilientKv(kv: Deno.Kv): Deno.Kv {
  if (wrapped.has(kv)) return kv;
  const proxy = new Proxy(kv, {
    get(target, prop) {
      switch (prop) {
        case "set":
          return (key: Deno.KvKey, value: unknown, opts?: { expireIn?: number }) =>
            kvWrite(target, () => target.set(key, value, opts));
        case "delete":
          return (key: Deno.KvKey) => kvWrite(target, () => target.delete(key));
        case "enqueue":
          return (value: unknown, opts?: Parameters<Deno.Kv["enqueue"]>[1]) =>
            kvWrite(target, () => target.enqueue(value, opts));
        case "atomic":
          return () => new RetryingAtomic(target) as unknown as Deno.AtomicOperation;
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  wrapped.add(proxy);
  return proxy;
}
