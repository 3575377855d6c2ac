/** /widget.js and /results.js (issue 5): being written. */
import { Hono } from "hono";
import type { AppEnv } from "../lib/http.ts";
import type { Services } from "../lib/services.ts";

export function scriptRoutes(_s: Services) {
  return new Hono<AppEnv>();
}
