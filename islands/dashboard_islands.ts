/** The dashboard's islands: its own bundle (static/islands/boot_dashboard.js), never on public pages. */
import { AnalyticsPanel } from "./AnalyticsPanel.tsx";
import { ContentPanel } from "./ContentPanel.tsx";
import { EmbedSnippet } from "./EmbedSnippet.tsx";
import { KeysPanel } from "./KeysPanel.tsx";
import { LeversPanel } from "./LeversPanel.tsx";
import { SettingsForm } from "./SettingsForm.tsx";
import { SitesAdmin } from "./SitesAdmin.tsx";
import { UsageMeters } from "./UsageMeters.tsx";

export const DASHBOARD_ISLANDS = {
  AnalyticsPanel,
  ContentPanel,
  EmbedSnippet,
  KeysPanel,
  LeversPanel,
  SettingsForm,
  SitesAdmin,
  UsageMeters,
} as const;
