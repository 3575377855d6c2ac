/**
 * Every island by name, and the bundle that hydrates it: the one table the server renders from
 * (components/Island.tsx, components/render.tsx). Each bundle's boot script hydrates its own
 * half, so the public results page never ships the dashboard's panels.
 */
import { ANALYTICS_ISLANDS } from "./analytics_islands.ts";
import { DASHBOARD_ISLANDS } from "./dashboard_islands.ts";
import { FRESHNESS_ISLANDS } from "./freshness_islands.ts";
import { OPERATOR_ISLANDS } from "./operator_islands.ts";
import { RESULTS_ISLANDS } from "./results_islands.ts";

export const ISLANDS = {
  ...RESULTS_ISLANDS,
  ...DASHBOARD_ISLANDS,
  ...ANALYTICS_ISLANDS,
  ...FRESHNESS_ISLANDS,
  ...OPERATOR_ISLANDS,
} as const;

export type IslandName = keyof typeof ISLANDS;

/** The module (under /assets/, built by scripts/build.ts) that hydrates island `name`. */
export function bundleOf(name: string): string | null {
  if (name in RESULTS_ISLANDS) return "islands/boot_results.js";
  if (name in DASHBOARD_ISLANDS) return "islands/boot_dashboard.js";
  if (name in ANALYTICS_ISLANDS) return "islands/boot_analytics.js";
  if (name in FRESHNESS_ISLANDS) return "islands/boot_freshness.js";
  if (name in OPERATOR_ISLANDS) return "islands/boot_operator.js";
  return null;
}
