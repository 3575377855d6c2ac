/**
 * The dashboard's analytics panel: a bundle of its own (static/islands/boot_analytics.js), so
 * each of the dashboard's bundles stays within the size budget.
 */
import { AnalyticsPanel } from "./AnalyticsPanel.tsx";

export const ANALYTICS_ISLANDS = { AnalyticsPanel } as const;
