/**
 * The owner's dashboard panels: their own bundle (static/islands/boot_dashboard.js), never on
 * public pages (analytics: analytics_islands.ts; the operator's list and search tuning:
 * operator_islands.ts).
 */
import { ContentPanel } from "./ContentPanel.tsx";
import { EmbedSnippet } from "./EmbedSnippet.tsx";
import { FirstRun } from "./FirstRun.tsx";
import { KeysPanel } from "./KeysPanel.tsx";
import { SettingsForm } from "./SettingsForm.tsx";
import { UsageMeters } from "./UsageMeters.tsx";

export const DASHBOARD_ISLANDS = {
  ContentPanel,
  EmbedSnippet,
  FirstRun,
  KeysPanel,
  SettingsForm,
  UsageMeters,
} as const;
