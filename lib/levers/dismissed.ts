/**
 * Suggestions an owner dismissed: kept per site as short hashes of (kind, query, target), so
 * a dismissed suggestion never comes back, whichever part of the service would offer it.
 */
import { sha256Hex } from "../sites/keys.ts";

const MAX_DISMISSED = 1_000;

const dismissedKey = (site: string) => ["levers", site, "dismissed"];

/** A dismissal as kept: a short hash, so a thousand stay far below KV's 64 KiB a value. */
export const dismissal = async (kind: string, query: string, target: string) =>
  (await sha256Hex(`${kind}\n${query}\n${target}`)).slice(0, 20);

/** The dismissals of a site. */
export async function dismissedSet(kv: Deno.Kv, site: string): Promise<Set<string>> {
  return new Set((await kv.get<string[]>(dismissedKey(site))).value ?? []);
}

/** Adds a dismissal (the oldest go first past MAX_DISMISSED). */
export async function addDismissal(kv: Deno.Kv, site: string, key: string) {
  for (;;) {
    const cur = await kv.get<string[]>(dismissedKey(site));
    const list = [...(cur.value ?? []).filter((k) => k !== key), key].slice(-MAX_DISMISSED);
    if ((await kv.atomic().check(cur).set(dismissedKey(site), list).commit()).ok) return;
  }
}
