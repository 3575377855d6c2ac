/** The demo site `deno task start` creates on first run, so search and answers work at once. */
import { DEMO_PAGES, DEMO_SITE_NAME } from "./pages.ts";
import { PLANS } from "../limits/plans.ts";
import type { Services } from "../services.ts";

const DEMO_KEY = ["config", "demo"];

export interface DemoInfo {
  siteId: string;
  publicKey: string;
  /** Kept for the local demo only, so each start can print it; real sites see theirs once. */
  adminKey: string;
  created: boolean;
}

/** Creates the demo site once (Business plan, AI summaries on) and returns its keys. */
export async function ensureDemoSite(s: Services): Promise<DemoInfo> {
  const entry = await s.kv.get<Omit<DemoInfo, "created">>(DEMO_KEY);
  const known = entry.value;
  const site = known ? await s.sites.get(known.siteId) : null;
  if (known && site) return { ...known, publicKey: site.publicKey, created: false };
  const created = await s.sites.create({
    name: DEMO_SITE_NAME,
    plan: "business",
    domain: null,
  });
  const info = {
    siteId: created.site.id,
    publicKey: created.publicKey,
    adminKey: created.adminKey,
  };
  // Another instance starting at the same moment may have claimed the demo first: use its site.
  if (!(await s.kv.atomic().check(entry).set(DEMO_KEY, info).commit()).ok) {
    await s.sites.remove(created.site.id);
    return await ensureDemoSite(s);
  }
  await s.sites.update(created.site.id, (cur) => ({
    ...cur,
    settings: {
      ...cur.settings,
      aiSummaries: true,
      followups: true,
      resultsPage: "/demo/search-results",
    },
  }));
  for (const page of DEMO_PAGES) {
    await s.pages.upsert(created.site.id, { ...page, lang: "en" }, PLANS.business.maxPages);
  }
  return { ...info, created: true };
}

/** The operator token: the environment's, else one generated once and kept in KV. */
export async function operatorToken(kv: Deno.Kv, fromEnv: string | undefined): Promise<string> {
  if (fromEnv) return fromEnv;
  const key = ["config", "operatorToken"];
  const stored = (await kv.get<string>(key)).value;
  if (stored) return stored;
  const token = "op_" + crypto.randomUUID().replaceAll("-", "");
  // Two instances starting together: the first token stored is the one both use.
  const ok = await kv.atomic().check({ key, versionstamp: null }).set(key, token).commit();
  return ok.ok ? token : await operatorToken(kv, fromEnv);
}

/** The demo site's current public key, or null before the demo site exists. */
export async function demoPublicKey(s: Services): Promise<{ siteId: string; key: string } | null> {
  const known = (await s.kv.get<Omit<DemoInfo, "created">>(DEMO_KEY)).value;
  const site = known ? await s.sites.get(known.siteId) : null;
  return site ? { siteId: site.id, key: site.publicKey } : null;
}
