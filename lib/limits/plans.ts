/** The plans of docs/api.md: the one table of limits. Nothing else repeats these numbers. */
export const PLANS = {
  free: {
    profile: "Shared",
    perMinute: 30,
    maxPerPage: 10,
    perMonth: 1_000,
    aiCredits: 25,
    followups: false,
    documents: false,
    maxPages: 1_000,
    maxDocumentBytes: 0,
  },
  basic: {
    profile: "Standard",
    perMinute: 60,
    maxPerPage: 20,
    perMonth: 10_000,
    aiCredits: 250,
    followups: true,
    documents: false,
    maxPages: 10_000,
    maxDocumentBytes: 0,
  },
  pro: {
    profile: "Performance",
    perMinute: 120,
    maxPerPage: 50,
    perMonth: 50_000,
    aiCredits: 1_000,
    followups: true,
    documents: false,
    maxPages: 50_000,
    maxDocumentBytes: 0,
  },
  business: {
    profile: "Performance",
    perMinute: 180,
    maxPerPage: 50,
    perMonth: 150_000,
    aiCredits: 3_000,
    followups: true,
    documents: true,
    maxPages: 100_000,
    maxDocumentBytes: 200 * 1024 * 1024,
  },
  enterprise: {
    profile: "Dedicated",
    perMinute: 600,
    maxPerPage: 100,
    perMonth: null,
    aiCredits: null,
    followups: true,
    documents: true,
    maxPages: 500_000,
    maxDocumentBytes: 2 * 1024 * 1024 * 1024,
  },
} as const;

export type PlanName = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as PlanName[];

/** Per-site overrides of a plan's numbers (`null` or absent: the plan's value). */
export interface LimitOverrides {
  searchesPerMinute?: number | null;
  searchesPerMonth?: number | null;
  aiCreditsPerMonth?: number | null;
  maxPerPage?: number | null;
}

/** The limits in force for a site; `null` monthly values mean unlimited. */
export interface EffectiveLimits {
  perMinute: number;
  perMonth: number | null;
  aiCredits: number | null;
  maxPerPage: number;
}

/** A site's limits: its plan's, with its overrides applied. */
export function effectiveLimits(plan: PlanName, o: LimitOverrides = {}): EffectiveLimits {
  const p = PLANS[plan];
  return {
    perMinute: o.searchesPerMinute ?? p.perMinute,
    perMonth: o.searchesPerMonth ?? p.perMonth,
    aiCredits: o.aiCreditsPerMonth ?? p.aiCredits,
    maxPerPage: o.maxPerPage ?? p.maxPerPage,
  };
}
