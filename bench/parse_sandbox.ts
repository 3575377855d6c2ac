/**
 * deno run --v8-flags=--expose-gc -A bench/parse_sandbox.ts [html dir]
 *
 * What parsing in the permission-less Worker (lib/parsing/sandbox.ts) costs against parsing
 * in the calling isolate, with the two interleaved pass by pass so a busy machine weighs on
 * both alike: throughput over a documentation set (Django's by default), the main thread's
 * CPU per pass, the latency one page and one PDF add, and resident memory, each measured
 * in a process of its own (`memory inproc|sandbox`, started by this script).
 */
import { pdfBytes } from "../tests/fixtures/pdf.ts";
import { extractPage } from "../lib/crawl/extract.ts";
import { pdfText } from "../lib/parsing/pdf.ts";
import { ParserSandbox } from "../lib/parsing/sandbox.ts";
import { V8_FLAGS } from "../lib/runtime_flags.ts";

const PDFS = [
  "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
  "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
];
const PASSES = 7;

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
const ms = (n: number) => `${n.toFixed(2)} ms`;
const gc = () => (globalThis as { gc?: () => void }).gc?.();
const median = (xs: number[]) => quantile(xs, 0.5);

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

async function htmlFiles(root: string): Promise<{ url: string; html: string }[]> {
  const out: { url: string; html: string }[] = [];
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const path = `${d}/${e.name}`;
      if (e.isDirectory) await walk(path);
      else if (e.isFile && e.name.endsWith(".html")) {
        const url = `http://127.0.0.1${path.slice(root.length)}`;
        out.push({ url, html: await Deno.readTextFile(path) });
      }
    }
  };
  await walk(root);
  return out.sort((a, b) => a.url.localeCompare(b.url));
}

/** A PDF of `pages` pages of `lines` lines each (tests/fixtures/pdf.ts writes the file). */
function bigPdf(pages: number, lines: number): Uint8Array {
  const objects = ["<< /Type /Catalog /Pages 2 0 R >>", "", FONT];
  const kids: string[] = [];
  for (let p = 0; p < pages; p++) {
    const text = Array.from(
      { length: lines },
      (_, i) => `(Page ${p} line ${i}: the quick brown fox jumps over the lazy dog) '`,
    ).join("\n");
    const content = `BT /F1 9 Tf 36 780 Td 10 TL\n${text}\nET`;
    objects.push(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${objects.length} 0 R ` +
        `/Resources << /Font << /F1 3 0 R >> >> >>`,
    );
    kids.push(`${objects.length} 0 R`);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(" ")}] /Count ${pages} >>`;
  return pdfBytes(objects);
}
const FONT = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

/** CPU seconds (user + system) of this process's main thread, from /proc. */
function mainThreadCpu(): number {
  const stat = Deno.readTextFileSync(`/proc/self/task/${Deno.pid}/stat`);
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / 100; // clock ticks at USER_HZ 100
}

/** Resident and peak resident memory of this process, in bytes. */
function memory(): { rss: number; peak: number } {
  const s = Deno.readTextFileSync("/proc/self/status");
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

type Page = { url: string; html: string };

function passInIsolate(pages: Page[]): Promise<void> {
  for (const p of pages) extractPage(p.html, p.url);
  return Promise.resolve();
}
async function passSequential(box: ParserSandbox, pages: Page[]) {
  for (const p of pages) await box.page(p.html, p.url);
}
async function passInFlight(box: ParserSandbox, pages: Page[], lanes: number) {
  let i = 0;
  const lane = async () => {
    while (i < pages.length) {
      const p = pages[i++];
      await box.page(p.html, p.url);
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

/** One process's memory: `inproc` parses every page here, `sandbox` in the Worker. */
async function memoryRun(which: string, pages: Page[]) {
  gc();
  const before = memory();
  const box = new ParserSandbox({ idleMs: 600_000 });
  if (which === "sandbox") await box.page("<p>x</p>", "http://127.0.0.1/");
  await new Promise((r) => setTimeout(r, 200));
  gc();
  const started = memory();
  const series: number[] = [];
  for (let i = 0; i < 6; i++) {
    if (which === "sandbox") await passSequential(box, pages);
    else await passInIsolate(pages);
    series.push(memory().rss);
  }
  gc();
  const after = memory();
  box.close();
  await new Promise((r) => setTimeout(r, 2000));
  gc();
  const closed = memory();
  console.log(JSON.stringify({ before, started, after, closed, series }));
}

async function memoryIn(which: string, dir: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--v8-flags=${V8_FLAGS}`,
      "-A",
      new URL(import.meta.url).pathname,
      "memory",
      which,
      dir,
    ],
    stderr: "inherit",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
}

if (Deno.args[0] === "memory") {
  await memoryRun(Deno.args[1], await htmlFiles(Deno.args[2]));
  Deno.exit(0);
}

const dir = Deno.args[0] ?? "/usr/share/doc/python-django-doc/html";
const pages = await htmlFiles(dir);
const bytes = pages.reduce((n, p) => n + p.html.length, 0);
const bySize = [...pages].sort((a, b) => a.html.length - b.html.length);
const [small, largest] = [bySize[pages.length >> 1], bySize.at(-1)!];
console.log(
  `# ${pages.length} pages, ${mb(bytes)} of HTML; median page ${
    (small.html.length / 1024).toFixed(0)
  } KB, largest ${(largest.html.length / 1024).toFixed(0)} KB; load ${Deno.loadavg()[0]}`,
);

const box = new ParserSandbox({ idleMs: 600_000 });
let t = performance.now();
await box.page("<p>x</p>", "http://127.0.0.1/");
console.log(`Worker start and a tiny page: ${ms(performance.now() - t)}`);

// Throughput, the three ways interleaved; one warm-up pass each first.
const runs: Record<string, { wall: number[]; cpu: number[] }> = {};
const ways: [string, () => Promise<void>][] = [
  ["in-isolate", () => passInIsolate(pages)],
  ["Worker, one at a time", () => passSequential(box, pages)],
  ["Worker, 4 in flight", () => passInFlight(box, pages, 4)],
  ["Worker, 32 in flight", () => passInFlight(box, pages, 32)],
];
for (let pass = 0; pass <= PASSES; pass++) {
  for (const [name, run] of ways) {
    gc();
    const [t0, c0] = [performance.now(), mainThreadCpu()];
    await run();
    const [wall, cpu] = [performance.now() - t0, mainThreadCpu() - c0];
    if (pass === 0) continue;
    (runs[name] ??= { wall: [], cpu: [] }).wall.push(wall);
    runs[name].cpu.push(cpu * 1000);
  }
}
const base = median(runs["in-isolate"].wall);
for (const [name, r] of Object.entries(runs)) {
  const wall = median(r.wall);
  console.log(
    `${name.padEnd(22)} median ${wall.toFixed(0)} ms (best ${Math.min(...r.wall).toFixed(0)}) = ` +
      `${(pages.length / wall * 1000).toFixed(0)} pages/s, ${
        ((wall / base - 1) * 100).toFixed(1)
      }% against in-isolate; main thread CPU ${median(r.cpu).toFixed(0)} ms a pass`,
  );
}

// One page's latency, alternating the two ways.
for (const [label, p] of [["median page", small], ["largest page", largest]] as const) {
  const inTimes: number[] = [], boxTimes: number[] = [];
  for (let i = 0; i < 300; i++) {
    let t0 = performance.now();
    extractPage(p.html, p.url);
    inTimes.push(performance.now() - t0);
    t0 = performance.now();
    await box.page(p.html, p.url);
    boxTimes.push(performance.now() - t0);
  }
  console.log(
    `${label} (${(p.html.length / 1024).toFixed(0)} KB): in-isolate p50 ${
      ms(median(inTimes))
    } p90 ${ms(quantile(inTimes, 0.9))}; Worker p50 ${ms(median(boxTimes))} p90 ${
      ms(quantile(boxTimes, 0.9))
    }; added at p50 ${ms(median(boxTimes) - median(inTimes))}`,
  );
}
// The round trip alone: a page with nothing in it.
{
  const times: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const t0 = performance.now();
    await box.page("", "http://127.0.0.1/");
    times.push(performance.now() - t0);
  }
  console.log(`empty page round trip: p50 ${ms(median(times))} p90 ${ms(quantile(times, 0.9))}`);
}

// PDFs, alternating; pdf.js is loaded in both isolates first.
await pdfText(Deno.readFileSync(PDFS[0]));
await box.document({ type: "application/pdf", bytes: Deno.readFileSync(PDFS[0]) });
const pdfs: [string, Uint8Array][] = [
  ...PDFS.map((p) => [p.split("/").at(-1)!, Deno.readFileSync(p)] as [string, Uint8Array]),
  ["generated, 200 pages", bigPdf(200, 70)],
  ["generated, 1,000 pages", bigPdf(1000, 70)],
];
for (const [name, data] of pdfs) {
  const inTimes: number[] = [], boxTimes: number[] = [];
  const rounds = data.length > 1e6 ? 3 : 9;
  for (let i = 0; i < rounds; i++) {
    gc();
    let t0 = performance.now();
    await pdfText(data);
    inTimes.push(performance.now() - t0);
    gc();
    t0 = performance.now();
    await box.document({ type: "application/pdf", bytes: data });
    boxTimes.push(performance.now() - t0);
  }
  console.log(
    `PDF ${name} (${mb(data.length)}): in-isolate p50 ${ms(median(inTimes))}; Worker p50 ${
      ms(median(boxTimes))
    }; added ${ms(median(boxTimes) - median(inTimes))}`,
  );
}
box.close();
t = performance.now();
await box.page("<p>x</p>", "http://127.0.0.1/");
console.log(`a restart and a tiny page: ${ms(performance.now() - t)}`);
box.close();

// Memory, each way in a fresh process.
for (const which of ["inproc", "sandbox"]) {
  const m = await memoryIn(which, dir);
  console.log(
    `memory, ${which}: RSS ${mb(m.before.rss)} at start, ${mb(m.started.rss)} ${
      which === "sandbox" ? "with the Worker started" : "(no Worker)"
    }, ${mb(m.after.rss)} after 6 passes (peak ${mb(m.after.peak)}), ${
      mb(m.closed.rss)
    } 2 s after the Worker stopped`,
  );
}
