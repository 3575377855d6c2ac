/**
 * Crawled pages and uploaded documents are parsed in a Worker that holds no permissions
 * (lib/parsing/sandbox.ts): whatever a parser flaw let a document do there, it could read no
 * file, reach no host and see no environment; a document that parses too long is cut off and
 * the next one parses; and what the crawl and the uploads get is what parsing in the isolate
 * gave.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { extractPage } from "../../lib/crawl/extract.ts";
import { markdownText } from "../../lib/parsing/markdown.ts";
import { pdfText } from "../../lib/parsing/pdf.ts";
import {
  ParseError,
  ParserSandbox,
  parserSandbox,
  type SandboxOptions,
} from "../../lib/parsing/sandbox.ts";
import { documentText } from "../../lib/sites/documents.ts";
import { admin, createSite, startApp } from "../helpers.ts";
import { html, serveSite } from "../fixtures/crawl_site.ts";
import { makePdf } from "../fixtures/pdf.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DJANGO = "/usr/share/doc/python-django-doc/html";
const SYSTEM_PDFS = [
  "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
  "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
];
const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));
const CRAWL = { allowLoopback: true, delayMs: 0, resolve: noDns };

/** 4 MB of stray end tags under 500 open elements: under a second, but far past 100 ms. */
const SLOW_HTML = "<div>".repeat(500) + "</b>".repeat(1_000_000);

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

async function djangoPages(): Promise<{ url: string; html: string }[]> {
  const out: { url: string; html: string }[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(path);
      else if (e.name.endsWith(".html")) {
        out.push({ url: `http://127.0.0.1${path.slice(DJANGO.length)}`, html: "" });
        out.at(-1)!.html = await Deno.readTextFile(path);
      }
    }
  };
  await walk(DJANGO);
  return out.sort((a, b) => (a.url < b.url ? -1 : 1));
}

/** Runs `fn` with the process's shared sandbox under other deadlines, then restores them. */
async function withDeadlines(patch: Partial<SandboxOptions>, fn: () => Promise<void>) {
  const options = parserSandbox().options;
  const saved = { ...options };
  Object.assign(options, patch);
  try {
    await fn();
  } finally {
    Object.assign(options, saved);
  }
}

async function rejection(p: Promise<unknown>): Promise<ParseError> {
  const err = await p.then(() => null, (e) => e);
  assert.ok(err instanceof ParseError, `expected a ParseError, got ${err}`);
  return err;
}

Deno.test("parse sandbox - the parser Worker holds no permissions: a file, the network, the environment and programs are refused there though allowed here", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("reached"),
  );
  const url = `http://127.0.0.1:${server.addr.port}/`;
  const path = fileURLToPath(import.meta.url);
  const box = new ParserSandbox();
  try {
    // Each attempt works in this isolate, so a refusal there is the Worker's own.
    assert.equal(await (await fetch(url)).text(), "reached");
    assert.ok((await Deno.readTextFile(path)).length > 0);
    assert.ok(Deno.env.get("PATH") !== undefined);

    const probe = await box.probe(url, path);
    assert.deepEqual(
      { read: probe.read, net: probe.net, env: probe.env, run: probe.run },
      { read: "NotCapable", net: "NotCapable", env: "NotCapable", run: "NotCapable" },
    );
    for (const [name, state] of Object.entries(probe.states)) {
      assert.notEqual(state, "granted", `the Worker holds ${name}`);
    }
  } finally {
    box.close();
    await server.shutdown();
  }
});

Deno.test("parse sandbox - under `deno run -A` and under the start task's permissions, pages are parsed in a Worker that holds none", async () => {
  const tasks = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)).tasks;
  const startFlags = tasks.start.split(" ").filter((f: string) => f.startsWith("--allow-"));
  for (const flags of [["-A"], startFlags]) {
    // No --config: deno.json is found from the script, as `deno run -A main.ts` finds it.
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...flags, "tests/fixtures/parse_probe.ts"],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, `${flags.join(" ")}: ${stderr}`);
    const result = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(result.title, "Probe");
    assert.equal(result.text, "Parsed in the Worker.");
    assert.deepEqual(
      [result.probe.read, result.probe.net, result.probe.env, result.probe.run],
      ["NotCapable", "NotCapable", "NotCapable", "NotCapable"],
      flags.join(" "),
    );
  }
});

Deno.test("parse sandbox - deno.json enables the unstable worker-options that a Worker's permissions need (without it Deno ends the process at `new Worker`)", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  assert.ok(config.unstable.includes("worker-options"), JSON.stringify(config.unstable));
});

Deno.test("parse sandbox - a document that parses past its deadline fails as a timeout; the Worker restarts and the next one parses", async () => {
  const box = new ParserSandbox({ documentMs: 300 });
  try {
    const warm = await box.document({ type: "text/markdown", text: "# Warm\n\nUp." });
    assert.equal(warm.title, "Warm");
    const started = performance.now();
    const err = await rejection(box.document({ type: "text/html", text: SLOW_HTML }));
    assert.equal(err.reason, "timeout");
    assert.match(err.message, /longer than 0\.3 s/);
    assert.ok(performance.now() - started < 3000, "cut off near its deadline");

    const manual = "# Kettle care\n\nDescale it **monthly**.\n";
    assert.deepEqual(
      await box.document({ type: "text/markdown", text: manual }),
      markdownText(manual),
    );
    assert.equal(box.starts, 2, "one Worker, then one after the timeout");
  } finally {
    box.close();
  }
});

Deno.test("parse sandbox - past the queue's bound a request fails at once as busy; closing fails what waits", async () => {
  const box = new ParserSandbox({ maxQueue: 1 });
  try {
    await box.page("<p>warm</p>", "http://127.0.0.1/");
    const slow = box.document({ type: "text/html", text: SLOW_HTML });
    const waiting = box.page("<p>next</p>", "http://127.0.0.1/");
    const busy = await rejection(box.page("<p>one too many</p>", "http://127.0.0.1/"));
    assert.equal(busy.reason, "busy");
    box.close();
    assert.equal((await rejection(slow)).reason, "crashed");
    assert.equal((await rejection(waiting)).reason, "crashed");
    assert.equal((await box.page("<p>again</p>", "http://127.0.0.1/")).text, "again");
  } finally {
    box.close();
  }
});

Deno.test({
  name:
    "parse sandbox - every page of the Django docs extracts the same in the Worker as in the isolate",
  ignore: !(await exists(DJANGO)),
  fn: async () => {
    const pages = await djangoPages();
    assert.ok(pages.length > 600, `${pages.length} pages`);
    const box = new ParserSandbox();
    try {
      for (const p of pages) {
        assert.deepEqual(await box.page(p.html, p.url), extractPage(p.html, p.url), p.url);
      }
    } finally {
      box.close();
    }
  },
});

Deno.test("parse sandbox - uploads read the same through the sandbox as in the isolate: PDFs, HTML, Markdown and text", async () => {
  const pdfs = [makePdf(["Descale the kettle monthly.", "Rinse it twice."], "Care")];
  for (const path of SYSTEM_PDFS) if (await exists(path)) pdfs.push(await Deno.readFile(path));
  for (const pdf of pdfs) {
    assert.deepEqual(await documentText("application/pdf", "", pdf), await pdfText(pdf));
  }
  const encode = (s: string) => new TextEncoder().encode(s);
  const pages = (await exists(DJANGO)) ? (await djangoPages()).slice(0, 150) : [];
  for (const p of pages) {
    const page = extractPage(p.html, "https://document.invalid/");
    assert.deepEqual(
      await documentText("text/html", "utf-8", encode(p.html)),
      { text: page.text, title: page.title },
      p.url,
    );
  }
  const markdown: string[] = [];
  const docs = (await exists("/usr/share/doc")) ? Deno.readDir("/usr/share/doc") : [];
  for await (const e of docs) {
    for (const name of ["README.md", "TESTING.md", "CONTRIBUTING.md"]) {
      const text = await Deno.readTextFile(`/usr/share/doc/${e.name}/${name}`).catch(() => "");
      if (text && !text.includes("\u0000")) markdown.push(text);
    }
  }
  markdown.push("# Kettle\n\nSetext\n===\n\n- [x] *done*\n");
  for (const md of markdown) {
    assert.deepEqual(await documentText("text/markdown", "utf-8", encode(md)), markdownText(md));
    const text = md.replace(/\r\n?/g, "\n");
    const first = text.trim().split("\n")[0].trim();
    assert.deepEqual(await documentText("text/plain", "utf-8", encode(md)), {
      text,
      title: first.length <= 120 ? first : "",
    });
  }
});

Deno.test("parse sandbox - a crawled page past its deadline is noted parse_timeout, and the rest of the site is indexed", async () => {
  const site = serveSite();
  site.routes.set(
    "/",
    html("Kettles", `<p>Our copper kettle.</p><a href="/care">Care</a> <a href="/huge">Huge</a>`),
  );
  site.routes.set("/care", html("Kettle care", "<p>Descale the copper kettle monthly.</p>"));
  site.routes.set("/about", html("About", "<p>We make kettles.</p>"));
  site.routes.set("/huge", { headers: { "Content-Type": "text/html" }, body: SLOW_HTML });
  const t = await startApp({ crawl: CRAWL });
  try {
    // SLOW_HTML takes 0.5-0.75 s alone; a small page's first parse in the restarted Worker can
    // pass 100 ms on a machine busy with other test files, so the deadline leaves room for it.
    await withDeadlines({ pageMs: 250 }, async () => {
      const s = await createSite(t, "pro");
      const res = await t.call(
        `/api/admin/sites/${s.id}/crawl`,
        admin(s.adminKey, { url: `${site.origin}/` }),
      );
      const started = await res.json();
      assert.equal(res.status, 202, JSON.stringify(started));
      let job;
      for (let i = 0; i < 1000; i++) {
        const r = await t.call(
          `/api/admin/sites/${s.id}/crawl/${started.job.id}`,
          admin(s.adminKey),
        );
        job = await r.json();
        if (job.status !== "queued" && job.status !== "running") break;
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(job.status, "done", JSON.stringify(job));
      assert.deepEqual(job.skipped, []);
      const noted = job.failed.map((i: { url: string; reason: string }) => [
        i.url.replace(site.origin, ""),
        i.reason,
      ]);
      assert.deepEqual(noted, [["/huge", "parse_timeout"]]);
      assert.equal(job.counts.indexed, 3);
      const pages = await t.call(`/api/admin/sites/${s.id}/pages`, admin(s.adminKey));
      assert.deepEqual(
        (await pages.json()).pages.map((p: { url: string }) => p.url).sort(),
        ["/", "/about", "/care"],
      );
    });
  } finally {
    t.close();
    await site.close();
  }
});

Deno.test("parse sandbox - an upload past its deadline answers 400 with the reason, and the next upload is stored", async () => {
  const t = await startApp();
  try {
    await withDeadlines({ documentMs: 300 }, async () => {
      const s = await createSite(t, "business");
      const upload = async (body: string, type = "text/markdown") => {
        const res = await t.call(`/api/admin/sites/${s.id}/documents`, {
          method: "POST",
          headers: { Authorization: `Bearer ${s.adminKey}`, "Content-Type": type },
          body,
        });
        return { status: res.status, body: await res.json() };
      };
      const slow = await upload(SLOW_HTML, "text/html");
      assert.equal(slow.status, 400, JSON.stringify(slow.body));
      assert.match(slow.body.error.message, /could not be read\. Parsing took longer than 0\.3 s/);
      const listed = await t.call(`/api/admin/sites/${s.id}/documents`, admin(s.adminKey));
      assert.deepEqual((await listed.json()).documents, [], "nothing kept of it");

      const ok = await upload("# Kettle manual\n\nDescale the kettle monthly.\n");
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      assert.equal(ok.body.document.title, "Kettle manual");
    });
  } finally {
    t.close();
  }
});

Deno.test("parse sandbox - where no Worker is used (Deno Deploy), the same requests give the same answers and refusals in the isolate", async () => {
  const isolate = new ParserSandbox({ inIsolate: true }), worker = new ParserSandbox();
  try {
    const page =
      "<html><head><title>Care</title></head><body><h1>Kettle</h1><p>Descale monthly.</p></body></html>";
    assert.deepEqual(
      await isolate.page(page, "http://127.0.0.1/care"),
      await worker.page(page, "http://127.0.0.1/care"),
    );
    const pdf = { type: "application/pdf" as const, bytes: makePdf(["Rinse it twice."], "Care") };
    assert.deepEqual(await isolate.document(pdf), await worker.document(pdf));
    assert.equal(isolate.starts, 0, "no Worker started");
    const damaged = {
      type: "application/pdf" as const,
      bytes: new TextEncoder().encode("%PDF-1.4 nothing"),
    };
    assert.equal((await rejection(isolate.document(damaged))).reason, "unreadable");
    assert.equal((await rejection(worker.document(damaged))).reason, "unreadable");
  } finally {
    worker.close();
    isolate.close();
  }
});
