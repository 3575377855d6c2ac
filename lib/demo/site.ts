/** The demo site `deno task start` creates on first run, so search and answers work at once. */
import { DEMO_PAGES, DEMO_SITE_NAME } from "./pages.ts";
import { PLANS } from "../limits/plans.ts";
import type { Services } from "../services.ts";
import { randomBase62, sha256Hex } from "../sites/keys.ts";

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

export interface OperatorToken {
  /** SHA-256 hex of the token: all the app keeps. */
  hash: string | null;
  /** The token itself, only when generated just now (printed once, never stored). */
  created: string | null;
}

const TOKEN_HASH_KEY = ["config", "operatorTokenHash"];
const LEGACY_TOKEN_KEY = ["config", "operatorToken"];

/**
 * The operator token's hash: the environment's token, else one generated once (its hash
 * kept in KV, the token returned this once). `generate: false` (production) never makes one.
 */
export async function operatorToken(
  kv: Deno.Kv,
  fromEnv: string | undefined,
  generate = true,
): Promise<OperatorToken> {
  if (fromEnv) return { hash: await sha256Hex(fromEnv), created: null };
  const legacy = await kv.get<string>(LEGACY_TOKEN_KEY);
  if (legacy.value) {
    // Earlier versions kept the token in plain text: keep only its hash from now on.
    await kv.atomic().check(legacy).set(TOKEN_HASH_KEY, await sha256Hex(legacy.value))
      .delete(LEGACY_TOKEN_KEY).commit();
  }
  const stored = await kv.get<string>(TOKEN_HASH_KEY);
  if (stored.value || !generate) return { hash: stored.value, created: null };
  const token = "op_" + randomBase62(32);
  const hash = await sha256Hex(token);
  const res = await kv.atomic().check(stored).set(TOKEN_HASH_KEY, hash).commit();
  // Another instance generated one first: theirs stands, and this one prints nothing.
  if (!res.ok) return { hash: (await kv.get<string>(TOKEN_HASH_KEY)).value, created: null };
  return { hash, created: token };
}

/** The demo site's current public key, or null before the demo site exists. */
export async function demoPublicKey(s: Services): Promise<{ siteId: string; key: string } | null> {
  const known = (await s.kv.get<Omit<DemoInfo, "created">>(DEMO_KEY)).value;
  const site = known ? await s.sites.get(known.siteId) : null;
  return site ? { siteId: site.id, key: site.publicKey } : null;
}
