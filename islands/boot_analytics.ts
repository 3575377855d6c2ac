/** The analytics panel's bundle: hydrates it. */
import { ANALYTICS_ISLANDS } from "./analytics_islands.ts";
import { hydrateIslands } from "./hydrate.ts";

hydrateIslands(ANALYTICS_ISLANDS);
