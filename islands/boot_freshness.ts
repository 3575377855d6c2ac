/** The freshness panel's bundle: hydrates it. */
import { FRESHNESS_ISLANDS } from "./freshness_islands.ts";
import { hydrateIslands } from "./hydrate.ts";

hydrateIslands(FRESHNESS_ISLANDS);
