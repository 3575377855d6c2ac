/** the demo site under /demo/ (issue 5): being written. */
import { Hono } from "hono";
import type { AppEnv } from "../lib/http.ts";
import type { Services } from "../lib/services.ts";

export function demoRoutes(_s: Services) {
  return new Hono<AppEnv>();
}
