/** The dashboard's bundle: hydrates its islands. */
import { DASHBOARD_ISLANDS } from "./dashboard_islands.ts";
import { hydrateIslands } from "./hydrate.ts";

hydrateIslands(DASHBOARD_ISLANDS);
