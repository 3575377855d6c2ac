/** The crawler against a server that only takes origin-form request lines: Python's http.server. */
import assert from "node:assert/strict";
import { GuardedFetcher } from "../../../lib/crawl/net/fetch.ts";
import { admin, createSite, startApp } from "../../helpers.ts";

const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));

/** `python3 -m http.server` on 127.0.0.1 serving `dir`; null when Python is missing. */
async function pythonServer(dir: string) {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("python3", {
      args: ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", dir],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch {
    return null;
  }
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!/port (\d+)/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error("http.server did not start");
    out += value;
  }
  const origin = `http://127.0.0.1:${/port (\d+)/.exec(out)![1]}`;
  return {
    origin,
    async close() {
      child.kill("SIGKILL");
      await reader.cancel();
      await child.stderr.cancel();
      await child.status;
    },
  };
}

const hasPython = await new Deno.Command("python3", { args: ["--version"], stdout: "null" })
  .output().then((o) => o.success, () => false);

Deno.test({
  name: "crawl net - a site served by Python's http.server is crawled whole (origin-form requests)",
  ignore: !hasPython,
  async fn() {
    const dir = await Deno.makeTempDir();
    const page = (title: string, body: string) =>
      `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main>${body}</main></body></html>`;
    await Deno.writeTextFile(
      `${dir}/index.html`,
      page("Home", '<p>Welcome to the tea shop.</p><a href="/about.html">About</a>'),
    );
    await Deno.writeTextFile(`${dir}/about.html`, page("About", "<p>We sell loose leaf tea.</p>"));
    const py = (await pythonServer(dir))!;

    // The fetcher alone: the request line is origin-form, so the server finds the file.
    const fetcher = new GuardedFetcher({
      allowLoopback: true,
      resolve: noDns,
      userAgent: "test",
      concurrency: 1,
      delayMs: 0,
    });
    const res = await fetcher.fetch(`${py.origin}/about.html`);
    assert.ok(res.ok && res.status === 200, JSON.stringify(res));
    assert.match(new TextDecoder().decode(res.body), /loose leaf tea/);
    await fetcher.close();

    // And a whole crawl through the API.
    const t = await startApp({ crawl: { allowLoopback: true, delayMs: 0, resolve: noDns } });
    const site = await createSite(t, "business");
    const started = await t.call(
      `/api/admin/sites/${site.id}/crawl`,
      admin(site.adminKey, { url: `${py.origin}/` }),
    );
    const { job } = await started.json();
    let done;
    for (let i = 0; i < 500; i++) {
      const poll = await t.call(
        `/api/admin/sites/${site.id}/crawl/${job.id}`,
        admin(site.adminKey),
      );
      done = await poll.json();
      if (done.status !== "queued" && done.status !== "running") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(done.status, "done", JSON.stringify(done));
    assert.deepEqual(done.failed, []);
    const list = await (await t.call(`/api/admin/sites/${site.id}/pages`, admin(site.adminKey)))
      .json();
    assert.deepEqual(list.pages.map((p: { url: string }) => p.url).sort(), ["/", "/about.html"]);
    t.close();
    await py.close();
    await Deno.remove(dir, { recursive: true });
  },
});
