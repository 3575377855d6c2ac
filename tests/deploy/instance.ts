/**
 * main.ts run as Deno Deploy runs it: `deno run -A main.ts`, no V8 flags, `DENO_DEPLOY=true`
 * (Deno.serve, Deploy's defaults), in production mode, with `KV_PATH` naming a KV file that
 * several such processes share, as Deploy's instances share its KV.
 */
import { type Instance, startMain } from "../fixtures/instance.ts";

export type DeployInstance = Instance;

export const OPERATOR = "op_deploy_shape_token";

/** Starts one Deploy-shaped instance with `env` (PORT 0 on 127.0.0.1) and waits for its banner. */
export function startDeployed(env: Record<string, string>): Promise<DeployInstance> {
  return startMain({
    DENO_DEPLOY: "true",
    SITESEARCH_DEMO: "",
    SITESEARCH_OPERATOR_TOKEN: OPERATOR,
    CRAWL_ALLOW_LOOPBACK: "true",
    ...env,
  }, { operatorToken: OPERATOR, ready: /ready:\s+curl/ });
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
