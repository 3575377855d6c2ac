/**
 * The owner's dashboard panels: their own bundle (static/islands/boot_dashboard.js), never on
 * public pages (the operator's list and search tuning: operator_islands.ts).
 */
import { AnalyticsPanel } from "./AnalyticsPanel.tsx";
import { ContentPanel } from "./ContentPanel.tsx";
import { EmbedSnippet } from "./EmbedSnippet.tsx";
import { FirstRun } from "./FirstRun.tsx";
import { KeysPanel } from "./KeysPanel.tsx";
import { SettingsForm } from "./SettingsForm.tsx";
import { UsageMeters } from "./UsageMeters.tsx";

export const DASHBOARD_ISLANDS = {
  AnalyticsPanel,
  ContentPanel,
  EmbedSnippet,
  FirstRun,
  KeysPanel,
  SettingsForm,
  UsageMeters,
} as const;
