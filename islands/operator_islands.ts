/**
 * The operator's site list and the owner's search tuning: a bundle of their own
 * (static/islands/boot_operator.js), so neither weighs on the owner's everyday dashboard.
 */
import { LeversPanel } from "./LeversPanel.tsx";
import { SitesAdmin } from "./SitesAdmin.tsx";

export const OPERATOR_ISLANDS = { LeversPanel, SitesAdmin } as const;
