/** POST /api/summarize (issue 4): being written. */
import { Hono } from "hono";
import type { AppEnv } from "../../lib/http.ts";
import type { Services } from "../../lib/services.ts";

export function summarizeRoutes(_s: Services) {
  return new Hono<AppEnv>();
}
