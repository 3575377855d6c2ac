/**
 * main.ts run as Deno Deploy runs it: `deno run -A main.ts`, no V8 flags, `DENO_DEPLOY=true`
 * (Deno.serve, Deploy's defaults), in production mode, with `KV_PATH` naming a KV file that
 * several such processes share, as Deploy's instances share its KV.
 */

export interface DeployInstance {
  url: string;
  pid: number;
  /** What it printed so far, stdout and stderr. */
  out(): string;
  alive(): boolean;
  /** Sends `signal`; answers the exit code and how long the process took to exit. */
  signal(signal: Deno.Signal): Promise<{ code: number; ms: number }>;
}

export const OPERATOR = "op_deploy_shape_token";
const ROOT = new URL("../../", import.meta.url);

/** Starts one Deploy-shaped instance with `env` (PORT 0 on 127.0.0.1) and waits for its banner. */
export async function startDeployed(env: Record<string, string>): Promise<DeployInstance> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: ROOT,
    env: {
      DENO_DEPLOY: "true",
      PORT: "0",
      HOSTNAME: "127.0.0.1",
      SITESEARCH_OPERATOR_TOKEN: OPERATOR,
      OPENAI_API_KEY: "",
      CRAWL_ALLOW_LOOPBACK: "true",
      ...env,
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  let exited = false;
  const status = child.status.then((s) => (exited = true, s));
  const pump = async (stream: ReadableStream<Uint8Array<ArrayBuffer>>) => {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) out += text;
  };
  const pumping = Promise.all([pump(child.stdout), pump(child.stderr)]);
  for (let waited = 0; !/ready:\s+curl/.test(out); waited += 20) {
    if (exited || waited > 30_000) {
      if (!exited) child.kill("SIGKILL");
      await status;
      await pumping;
      throw new Error("main.ts did not start in Deploy mode: " + out);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url: /running at (\S+)/.exec(out)![1],
    pid: child.pid,
    out: () => out,
    alive: () => !exited,
    async signal(signal) {
      const sent = performance.now();
      if (!exited) child.kill(signal);
      const s = await status;
      await pumping;
      return { code: s.code, ms: performance.now() - sent };
    },
  };
}

/** A JSON call with the operator token. */
export async function operator(
  base: string,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { Authorization: `Bearer ${OPERATOR}`, "Content-Type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: await res.json() };
}
