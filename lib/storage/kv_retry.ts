/**
 * The one way to use KV: a write that loses SQLite's lock to another process on the same
 * file ("database is locked") is retried; a store that cannot keep what it is given (disk
 * I/O error, read-only or immutable file, file deleted) answers 503 before a write would be
 * lost. A local file is checked before every write and after it, and before reads (which
 * rely on a check made within READ_PROBE_MS); once it fails the KV is left alone until the file
 * is usable again: SQLite touching an immutable shared-memory file kills the process with
 * SIGBUS, reads included.
 */
import { busy, DomainError, isLocked, isStorageFault, storageUnavailable } from "../errors.ts";

/** Where storage_down and storage_up lines go (services give the app's logger). */
type Log = (line: Record<string, unknown>) => void;
const stderrLog: Log = (line) => console.error(JSON.stringify(line));

/** Attempts a KV step gets (lost races and a locked file alike) before it answers 503. */
export const KV_ATTEMPTS = 100;
/** What a step returns when its versionstamp check failed: it is run again at once. */
export const LOST_RACE: unique symbol = Symbol("lost race");

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The one retry loop for KV: runs `step` until it returns a value. A lost race (LOST_RACE) is
 * run again at once; "database is locked" (another process on the same local file) after a
 * short, growing pause; a failing store is a 503 at once. After KV_ATTEMPTS, 503 `busyMessage`.
 */
export async function retryKv<T>(
  step: () => Promise<T | typeof LOST_RACE>,
  busyMessage: string,
  onLostRace: () => void = () => {},
): Promise<T> {
  for (let attempt = 0; attempt < KV_ATTEMPTS; attempt++) {
    try {
      const out = await step();
      if (out !== LOST_RACE) return out;
      onLostRace();
    } catch (err) {
      if (err instanceof DomainError) throw err;
      if (isStorageFault(err)) throw storageUnavailable(err);
      if (!isLocked(err)) throw err;
      await sleep(Math.min(50, 2 + attempt) * (0.5 + Math.random()));
    }
  }
  throw busy(busyMessage);
}

/** One KV and, for a local file, where it lives and whether it is usable now. */
interface Store {
  readonly kv: Deno.Kv;
  log: Log;
  /** A local file's database, WAL and shared-memory file, as probe reads them; none else. */
  files: KvFile[];
  down: unknown | null;
  recovering?: ReturnType<typeof setInterval>;
  /** When the files were last found usable (performance.now()). */
  probedAt: number;
}

/**
 * How long reads rely on the last probe of the files. A probe is three writes of inode times
 * on the event loop (~12 µs, and up to milliseconds behind the file system's journal while
 * SQLite commits), and one search reads KV several times. A file frozen between a probe and
 * SQLite's read is a race either way (the read runs later, on KV's own thread): this widens it
 * by at most this long. Writes probe before and after, every time.
 */
export const READ_PROBE_MS = 5;

const stores = new WeakMap<Deno.Kv, Store>();
const storeOf = (kv: Deno.Kv): Store =>
  stores.get(kv) ?? { kv, log: stderrLog, files: [], down: null, probedAt: -Infinity };

const isLocalFile = (path: string) => path !== ":memory:" && !path.includes("://");

/** Opens a KV (retrying a lock held by another instance opening the same new file), resilient. */
export async function openResilientKv(
  path?: string,
  { writable }: { writable?: WritableProbe } = {},
): Promise<Deno.Kv> {
  const kv = await retryKv(() => Deno.openKv(path), "The KV file stays locked by another process.");
  const proxy = resilientKv(kv);
  if (path && isLocalFile(path)) {
    stores.get(proxy)!.files = [path, path + "-wal", path + "-shm"].map((p) => ({
      path: p,
      writable: writable?.(p) ?? null,
    }));
  }
  return proxy;
}

/**
 * Tells whether a file may be written without touching it (lib/platform: access(2) through
 * glibc), made once per file; null where it cannot be told that way.
 */
export type WritableProbe = (path: string) => (() => boolean) | null;

/** A file of a local KV store, and its probe without writing, if the platform gives one. */
type KvFile = { path: string; writable: (() => boolean) | null };

/**
 * Whether the KV's files are all there and writable: a deleted file (NotFound), an immutable
 * one (EPERM) and a read-only mount (EROFS) fail. access(2) through glibc, where the platform
 * gives it, changes nothing on disk; utime (the fallback, and what words a failure) writes the
 * inodes' times and may wait behind the file system's journal while SQLite commits. Neither
 * opens the file, so SQLite's POSIX locks on it stay untouched.
 */
function probe(files: KvFile[]): unknown | null {
  for (const file of files) {
    if (file.writable?.()) continue;
    try {
      const now = new Date();
      Deno.utimeSync(file.path, now, now);
    } catch (err) {
      // The WAL files come and go with connections; only the database itself must exist.
      if (file !== files[0] && err instanceof Deno.errors.NotFound) continue;
      return err;
    }
  }
  return null;
}

/**
 * Throws a 503 unless the store's file is usable. Once it is not, nothing more is asked of
 * the KV (not even to close: SQLite would write on closing) until the file is usable again.
 */
function check(store: Store, read = false) {
  if (store.down !== null) throw storageUnavailable(store.down);
  if (!store.files.length) return;
  const now = performance.now();
  if (read && now - store.probedAt < READ_PROBE_MS) return;
  const fault = probe(store.files);
  if (fault === null) {
    store.probedAt = now;
    return;
  }
  store.down = fault;
  const path = store.files[0].path;
  store.log({ level: "error", event: "storage_down", path, error: String(fault) });
  store.recovering = setInterval(() => {
    if (probe(store.files) !== null) return;
    clearInterval(store.recovering);
    store.down = null;
    store.log({ level: "info", event: "storage_up", path });
  }, 1000);
  throw storageUnavailable(fault);
}

/** Runs one KV write: retried while the file is locked, a 503 when the store is failing. */
function kvWrite<T>(kv: Deno.Kv, write: (kv: Deno.Kv) => Promise<T>): Promise<T> {
  const store = storeOf(kv);
  return retryKv(async () => {
    check(store);
    const out = await write(store.kv);
    check(store); // deleted or frozen while writing: the write may be gone
    return out;
  }, "Storage is busy. Retry.");
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
  /** Refused: see NO_QUEUE. */
  enqueue(): never {
    throw new Error(NO_QUEUE);
  }
  commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    return kvWrite(this.kv, (kv) => {
      const op = kv.atomic();
      for (const step of this.#steps) step(op);
      return op.commit();
    });
  }
}

/**
 * Why the KV queue is never used: the new Deno Deploy and a remote denokv (KV Connect) do not
 * have it, so a call would work in tests and fail where the service is deployed. Background
 * work runs on leases in KV, timers and Deno.cron instead (lib/crawl/leases.ts).
 */
export const NO_QUEUE =
  "The KV queue (enqueue, listenQueue) is not available on Deno Deploy or a remote denokv; use a lease in KV.";

/**
 * The KV every store uses: set, delete and atomic commits go through kvWrite; reads check the
 * file first; the queue is refused (NO_QUEUE); everything else is the KV's own. `log` takes
 * storage faults.
 */
export function resilientKv(kv: Deno.Kv, log?: Log): Deno.Kv {
  const known = stores.get(kv);
  if (known) {
    if (log) known.log = log;
    return kv;
  }
  const store: Store = { kv, log: log ?? stderrLog, files: [], down: null, probedAt: -Infinity };
  const proxy = new Proxy(kv, {
    get(_, prop) {
      const read = <A extends unknown[], R>(f: (kv: Deno.Kv, ...a: A) => R) => (...a: A): R => {
        check(store, true);
        return f(store.kv, ...a);
      };
      switch (prop) {
        case "set":
          return (key: Deno.KvKey, value: unknown, opts?: { expireIn?: number }) =>
            kvWrite(proxy, (kv) => kv.set(key, value, opts));
        case "delete":
          return (key: Deno.KvKey) => kvWrite(proxy, (kv) => kv.delete(key));
        case "enqueue":
        case "listenQueue":
          return () => {
            throw new Error(NO_QUEUE);
          };
        case "atomic":
          return () => new RetryingAtomic(proxy) as unknown as Deno.AtomicOperation;
        case "get":
          return read((kv, key: Deno.KvKey, o?: { consistency?: Deno.KvConsistencyLevel }) =>
            kv.get(key, o)
          );
        case "getMany":
          return read((kv, keys: Deno.KvKey[], o?: { consistency?: Deno.KvConsistencyLevel }) =>
            kv.getMany(keys, o)
          );
        case "list":
          return read((kv, sel: Deno.KvListSelector, o?: Deno.KvListOptions) => kv.list(sel, o));
        case "close":
          return () => {
            clearInterval(store.recovering);
            if (store.down === null) store.kv.close(); // closing writes: not to a failed file
          };
      }
      const v = Reflect.get(store.kv, prop, store.kv);
      return typeof v === "function" ? v.bind(store.kv) : v;
    },
  });
  stores.set(proxy, store);
  return proxy;
}
