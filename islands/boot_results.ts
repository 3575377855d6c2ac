/** The results page's bundle: hydrates its islands. */
import { hydrateIslands } from "./hydrate.ts";
import { RESULTS_ISLANDS } from "./results_islands.ts";

hydrateIslands(RESULTS_ISLANDS);
