/**
 * The dashboard's freshness panel (re-fetch pages, why a page is not searchable): a bundle of its
 * own (static/islands/boot_freshness.js), so each of the dashboard's bundles stays within the
 * size budget.
 */
import { FreshnessPanel } from "./FreshnessPanel.tsx";

export const FRESHNESS_ISLANDS = { FreshnessPanel } as const;
