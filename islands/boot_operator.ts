/** The operator's and tuning bundle: hydrates its islands. */
import { hydrateIslands } from "./hydrate.ts";
import { OPERATOR_ISLANDS } from "./operator_islands.ts";

hydrateIslands(OPERATOR_ISLANDS);
