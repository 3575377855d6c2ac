/**
 * The pages' packed text of the search indexes in memory (lib/search/engine's `BodyArena`),
 * kept in a file this process holds open instead of in its memory: text is ~45 % of a small
 * site's index, and a search reads it only for the few pages it shows (a read of a few KB from
 * the operating system's page cache, which the kernel gives back under memory pressure and which
 * is not the process's own memory). A self-hosted instance turns it on (main.ts); on Deno
 * Deploy, with no file system to write, text stays in memory.
 *
 * One file at a time takes new text, removed from its directory as soon as it is open, so
 * nothing is left behind by a process that is killed. Text of an index dropped (evicted,
 * compacted anew, rebuilt) is freed when V8 collects what read it; once a file holds more
 * freed bytes than live ones (and more than ROTATE_BYTES), new text goes to a new file, and the
 * live text of the old one moves over in slices of MOVE_BYTES, one a turn of the event loop,
 * until the old file is closed. A file that cannot be made or written leaves text in memory.
 */

/** Bytes read back by range: what the search engine reads a site's page text from (`BodyArena`). */
export interface ByteArena {
  readonly byteLength: number;
  /** `reuse`: the bytes may be in a buffer the next such read overwrites. */
  read(from: number, to: number, reuse?: boolean): Uint8Array;
}

/** Freed bytes in a file past which new text goes to a new file (and the live moves over). */
const ROTATE_BYTES = 64 << 20;
/** Bytes moved from an old file to the new one in one turn of the event loop. */
const MOVE_BYTES = 1 << 20;

interface SpillFile {
  file: Deno.FsFile;
  /** Where the next text is written. */
  end: number;
  /** Bytes of text still read from it. */
  live: number;
  /** Its regions still read, for moving them when the file is left. */
  regions: Set<Region>;
}

/** One arena's bytes: in which file and where; moved by changing both at once. */
interface Region {
  file: SpillFile;
  at: number;
  length: number;
}

export interface SpillStats {
  /** Bytes of text the indexes read from the files. */
  liveBytes: number;
  /** Bytes the files hold, freed text included. */
  fileBytes: number;
  /** Arenas kept in memory because a file could not be written. */
  inMemory: number;
}

/** When a file is left for a new one, and how much moves a turn (tests make them small). */
export interface SpillOptions {
  /** Freed bytes past which a file is left (and past its live bytes): ROTATE_BYTES. */
  rotateBytes?: number;
  /** Bytes moved a turn: MOVE_BYTES. */
  moveBytes?: number;
}

export class TextSpill {
  private current: SpillFile;
  private old: SpillFile[] = [];
  private moving = false;
  private reused = new Uint8Array(64 << 10);
  private fellBack = 0;
  /** When what reads an arena is collected, its bytes in the file are free. */
  private freed = new FinalizationRegistry<Region>((r) => this.free(r));

  private rotateBytes: number;
  private moveBytes: number;

  private constructor(private dir: string, first: SpillFile, opts: SpillOptions) {
    this.current = first;
    this.rotateBytes = opts.rotateBytes ?? ROTATE_BYTES;
    this.moveBytes = opts.moveBytes ?? MOVE_BYTES;
  }

  /** A spill in `dir`, or null where no file can be made there (no permission, no disk). */
  static open(dir: string, opts: SpillOptions = {}): TextSpill | null {
    const first = newFile(dir);
    return first && new TextSpill(dir, first, opts);
  }

  /** Keeps `bytes` (copied) and answers the arena that reads them back. */
  keep(bytes: Uint8Array): ByteArena {
    const region = this.write(bytes);
    if (!region) {
      this.fellBack++;
      const copy = bytes.slice();
      return { byteLength: copy.length, read: (from, to) => copy.subarray(from, to) };
    }
    const arena: ByteArena = {
      byteLength: bytes.length,
      read: (from, to, reuse) => {
        const out = reuse ? this.scratch(to - from) : new Uint8Array(to - from);
        return readInto(region.file.file, region.at + from, out);
      },
    };
    this.freed.register(arena, region);
    return arena;
  }

  /**
   * `n` bytes of a buffer each reuse read takes (a result's text read for a search, used at
   * once): a new buffer per read cost more than the read itself (~6 of ~15 µs for 8 KB).
   */
  private scratch(n: number): Uint8Array {
    if (this.reused.length < n) this.reused = new Uint8Array(Math.max(n, 2 * this.reused.length));
    return this.reused.subarray(0, n);
  }

  stats(): SpillStats {
    const files = [this.current, ...this.old];
    return {
      liveBytes: files.reduce((n, f) => n + f.live, 0),
      fileBytes: files.reduce((n, f) => n + f.end, 0),
      inMemory: this.fellBack,
    };
  }

  /** Closes the files (their text is gone; arenas read after this throw). */
  close() {
    for (const f of [this.current, ...this.old.splice(0)]) closeQuietly(f.file);
  }

  private write(bytes: Uint8Array): Region | null {
    const f = this.current;
    try {
      writeAt(f.file, f.end, bytes);
    } catch {
      return null;
    }
    const region = { file: f, at: f.end, length: bytes.length };
    f.end += bytes.length;
    f.live += bytes.length;
    f.regions.add(region);
    return region;
  }

  private free(r: Region) {
    const f = r.file;
    if (!f.regions.delete(r)) return;
    f.live -= r.length;
    if (f !== this.current) {
      if (!f.regions.size) this.retire(f);
      return;
    }
    const dead = f.end - f.live;
    if (dead > this.rotateBytes && dead > f.live) this.rotate();
  }

  /** New text goes to a new file; the live text of the one left moves over. */
  private rotate() {
    const next = newFile(this.dir);
    if (!next) return; // the current file goes on taking text
    this.old.push(this.current);
    this.current = next;
    this.move();
  }

  /** Moves the old files' live regions to the current file, `moveBytes` a turn. */
  private move() {
    if (this.moving) return;
    this.moving = true;
    let region: Region | undefined, copy: Region | undefined, done = 0;
    const step = () => {
      try {
        if (region && !region.file.regions.has(region)) region = undefined; // freed meanwhile
        if (!region) {
          const from = this.old.find((f) => f.regions.size);
          region = from?.regions.values().next().value;
          if (!region) return void (this.moving = false);
          const to = this.current;
          copy = { file: to, at: to.end, length: region.length };
          to.end += region.length;
          done = 0;
        }
        const n = Math.min(this.moveBytes, region.length - done);
        writeAt(copy!.file.file, copy!.at + done, readAt(region.file.file, region.at + done, n));
        done += n;
        if (done === region.length) {
          // Freed meanwhile: the copy is dead bytes in the new file.
          const old = region.file;
          if (old.regions.delete(region)) {
            old.live -= region.length;
            region.file = copy!.file;
            region.at = copy!.at;
            region.file.live += region.length;
            region.file.regions.add(region);
          }
          if (!old.regions.size) this.retire(old);
          region = undefined;
        }
      } catch {
        // The new file cannot take it: the text stays where it is.
        this.moving = false;
        return;
      }
      Deno.unrefTimer(setTimeout(step, 0));
    };
    step();
  }

  private retire(f: SpillFile) {
    const i = this.old.indexOf(f);
    if (i < 0) return;
    this.old.splice(i, 1);
    closeQuietly(f.file);
  }
}

let made = 0;

/** A file in `dir` for text, removed from the directory at once; null where none can be. */
function newFile(dir: string): SpillFile | null {
  const path = `${dir}/.text-${Deno.pid}-${Date.now().toString(36)}-${made++}`;
  try {
    const file = Deno.openSync(path, { read: true, write: true, createNew: true });
    try {
      Deno.removeSync(path);
    } catch {
      closeQuietly(file);
      return null;
    }
    return { file, end: 0, live: 0, regions: new Set() };
  } catch {
    return null;
  }
}

function writeAt(file: Deno.FsFile, at: number, bytes: Uint8Array) {
  file.seekSync(at, Deno.SeekMode.Start);
  for (let done = 0; done < bytes.length;) done += file.writeSync(bytes.subarray(done));
}

const readAt = (file: Deno.FsFile, at: number, length: number) =>
  readInto(file, at, new Uint8Array(length));

/** Fills `out` with the file's bytes from `at`. */
function readInto(file: Deno.FsFile, at: number, out: Uint8Array): Uint8Array {
  const length = out.length;
  file.seekSync(at, Deno.SeekMode.Start);
  for (let done = 0; done < length;) {
    const n = file.readSync(out.subarray(done));
    if (n === null) throw new Error("text spill: read past the end of its file");
    done += n;
  }
  return out;
}

function closeQuietly(file: Deno.FsFile) {
  try {
    file.close();
  } catch { /* already closed */ }
}
