/**
 * Every island by name: the one table the server renders from (components/Island.tsx) and the
 * boot script hydrates from (islands/boot.ts), so the names cannot drift apart.
 */
import { AnalyticsPanel } from "./AnalyticsPanel.tsx";
import { Answer } from "./Answer.tsx";
import { ContentPanel } from "./ContentPanel.tsx";
import { EmbedSnippet } from "./EmbedSnippet.tsx";
import { KeysPanel } from "./KeysPanel.tsx";
import { LeversPanel } from "./LeversPanel.tsx";
import { Results } from "./Results.tsx";
import { SearchBox } from "./SearchBox.tsx";
import { SettingsForm } from "./SettingsForm.tsx";
import { SitesAdmin } from "./SitesAdmin.tsx";
import { UsageMeters } from "./UsageMeters.tsx";

export const ISLANDS = {
  AnalyticsPanel,
  Answer,
  ContentPanel,
  EmbedSnippet,
  KeysPanel,
  LeversPanel,
  Results,
  SearchBox,
  SettingsForm,
  SitesAdmin,
  UsageMeters,
} as const;

export type IslandName = keyof typeof ISLANDS;
