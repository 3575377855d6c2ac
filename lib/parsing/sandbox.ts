/**
 * Parsing what tenants hand us (crawled pages, uploaded documents) happens in one Worker
 * that holds no permissions (parse_worker.ts): a flaw in htmlparser2, pdf.js or our own
 * regular expressions can then read no file, reach no host and see no environment, and a
 * document that parses for too long is cut off by terminating the Worker, not left to hold
 * a thread. It also keeps a long parse off the thread that answers searches.
 *
 * One request runs at a time; the others wait in a bounded queue. The Worker starts on
 * first use, again after a timeout or a crash, and stops when idle: a live Worker keeps a
 * process from exiting, and its isolate's memory is only worth holding while parsing goes on.
 * Measured against parsing in the main isolate in BENCHMARKS.md ("Parsing in a Worker").
 *
 * `deno: { permissions }` on a Worker needs the unstable "worker-options" (deno.json); without
 * it Deno ends the whole process at `new Worker`, so a test checks deno.json asks for it.
 */
import type { ExtractedPage } from "../crawl/extract.ts";
import type {
  DocumentParts,
  DocumentSource,
  ParseReply,
  ParseRequest,
  ProbeResult,
} from "./parse.ts";
import { handle } from "./parse.ts";
import { onDeploy } from "../deploy.ts";

/**
 * Why a parse gave nothing: it ran past its deadline, the queue was full, the Worker died
 * under it, the file is not readable as its type (a damaged PDF), or the parser threw.
 */
export type ParseFailure = "timeout" | "busy" | "crashed" | "unreadable" | "failed";

/** A parse that gave nothing, with the reason as a word callers can report. */
export class ParseError extends Error {
  constructor(readonly reason: ParseFailure, message: string) {
    super(message);
    this.name = "ParseError";
  }
}

export interface SandboxOptions {
  /** Deadline of one crawled page, from when the Worker takes it. */
  pageMs: number;
  /** Deadline of one uploaded document (a 10 MB PDF is slower than any page). */
  documentMs: number;
  /** Deadline for a (re)started Worker to load its modules. */
  startMs: number;
  /** Requests waiting beyond the one being parsed; past this a request fails as "busy". */
  maxQueue: number;
  /** The Worker stops after this long with nothing to parse. */
  idleMs: number;
  /**
   * Parse in the main isolate, without a Worker or deadlines: on Deno Deploy, where a Worker's
   * `deno.permissions` was not tried (an option Deno does not honour ends the process) and
   * the isolate itself can write no file, start no program and open no native code.
   */
  inIsolate: boolean;
}

// Measured: the largest Django page (573 KB) parses in 50-80 ms and 4 MB of hostile HTML in
// under a second; a 10 MB PDF of 2,100 text pages in 6-8 s. The crawls of one instance keep at
// most MAX_RUNNING × their tuning's `workers` pages waiting: by default half this queue.
export const SANDBOX_DEFAULTS: SandboxOptions = {
  pageMs: 10_000,
  documentMs: 30_000,
  startMs: 30_000,
  maxQueue: 64,
  idleMs: 5_000,
  inIsolate: false,
};

interface Job {
  req: ParseRequest;
  ms: number;
  resolve: (value: unknown) => void;
  reject: (err: ParseError) => void;
}

const WORKER_URL = new URL("./parse_worker.ts", import.meta.url);

/** One permission-less parser Worker and its queue. */
export class ParserSandbox {
  readonly options: SandboxOptions;
  /** Workers started so far (the first, and each restart). */
  starts = 0;
  #worker: Worker | null = null;
  #ready = false;
  #queue: Job[] = [];
  #current: Job | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #idle: ReturnType<typeof setTimeout> | undefined;

  constructor(options: Partial<SandboxOptions> = {}) {
    this.options = { ...SANDBOX_DEFAULTS, ...options };
  }

  /** `extractPage(html, baseUrl)` (lib/crawl/extract.ts), parsed in the Worker. */
  page(html: string, baseUrl: string): Promise<ExtractedPage> {
    return this.#run({ op: "page", html, baseUrl }, this.options.pageMs);
  }

  /** An uploaded document's text and title, parsed in the Worker. */
  document(source: DocumentSource): Promise<DocumentParts> {
    return this.#run({ op: "document", ...source }, this.options.documentMs);
  }

  /** For tests: what the Worker meets when it tries to read `path`, fetch `url`, read env. */
  probe(url: string, path: string): Promise<ProbeResult> {
    return this.#run({ op: "probe", url, path }, this.options.pageMs);
  }

  /** Stops the Worker; what waits fails as "crashed". A later request starts a new one. */
  close(): void {
    const waiting = [...(this.#current ? [this.#current] : []), ...this.#queue];
    this.#current = null;
    this.#queue = [];
    this.#stop();
    clearTimeout(this.#idle);
    for (const job of waiting) job.reject(new ParseError("crashed", "The parser was stopped."));
  }

  async #run<T>(req: ParseRequest, ms: number): Promise<T> {
    if (this.options.inIsolate) {
      const reply = await handle(req);
      if (!("ok" in reply)) throw new ParseError("failed", "The parser gave no answer.");
      if (!reply.ok) throw new ParseError(reply.reason, reply.message);
      return reply.value as T;
    }
    if (this.#queue.length >= this.options.maxQueue) {
      return Promise.reject(
        new ParseError("busy", `The parser has ${this.#queue.length} documents waiting. Retry.`),
      );
    }
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ req, ms, resolve: resolve as (v: unknown) => void, reject });
      this.#next();
    });
  }

  /** Hands the next waiting request to the Worker, starting one if there is none. */
  #next(): void {
    clearTimeout(this.#idle);
    if (this.#current) return;
    if (this.#queue.length === 0) {
      if (this.#worker) this.#idle = setTimeout(() => this.#stop(), this.options.idleMs);
      return;
    }
    if (!this.#worker) return this.#start();
    if (!this.#ready) return;
    const job = this.#current = this.#queue.shift()!;
    this.#timer = setTimeout(() => {
      const s = Math.round(job.ms / 100) / 10;
      this.#fail(new ParseError("timeout", `Parsing took longer than ${s} s and was stopped.`));
    }, job.ms);
    this.#worker.postMessage(job.req);
  }

  #start(): void {
    this.starts++;
    this.#ready = false;
    let worker: Worker;
    try {
      worker = this.#worker = new Worker(WORKER_URL, {
        type: "module",
        deno: { permissions: "none" },
      });
    } catch (err) {
      return this.#fail(new ParseError("crashed", `The parser could not start: ${err}`));
    }
    // Events of a Worker already replaced (timed out, crashed) concern no request any more.
    worker.onmessage = (e: MessageEvent<ParseReply>) => {
      if (this.#worker === worker) this.#reply(e.data);
    };
    // An error left unhandled in a Worker would end this process: it only ends this parse.
    worker.onerror = (e) => {
      e.preventDefault();
      if (this.#worker !== worker) return;
      this.#fail(new ParseError("crashed", `The parser failed: ${e.message}`));
    };
    worker.onmessageerror = () => {
      if (this.#worker !== worker) return;
      this.#fail(new ParseError("crashed", "The parser's answer could not be read."));
    };
    this.#timer = setTimeout(
      () => this.#fail(new ParseError("crashed", "The parser did not start in time.")),
      this.options.startMs,
    );
  }

  #reply(reply: ParseReply): void {
    clearTimeout(this.#timer);
    if ("ready" in reply) {
      this.#ready = true;
      return this.#next();
    }
    const job = this.#current;
    this.#current = null;
    if (job && reply.ok) job.resolve(reply.value);
    else if (job && !reply.ok) job.reject(new ParseError(reply.reason, reply.message));
    this.#next();
  }

  /** Ends the Worker and fails the request it held (or, while starting, the first waiting). */
  #fail(err: ParseError): void {
    clearTimeout(this.#timer);
    const job = this.#current ?? this.#queue.shift();
    this.#current = null;
    this.#stop();
    job?.reject(err);
    this.#next();
  }

  #stop(): void {
    clearTimeout(this.#timer);
    this.#worker?.terminate();
    this.#worker = null;
    this.#ready = false;
  }
}

let shared: ParserSandbox | null = null;

/** The process's parser sandbox, made on first use. */
export function parserSandbox(): ParserSandbox {
  return shared ??= new ParserSandbox({ inIsolate: onDeploy() });
}

/** A crawled page's extraction (lib/crawl/extract.ts), done in the parser sandbox. */
export function parsePage(html: string, baseUrl: string): Promise<ExtractedPage> {
  return parserSandbox().page(html, baseUrl);
}
