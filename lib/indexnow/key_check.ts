/**
 * Whether the owner of a host vouches for an IndexNow key: the key file's text is the key.
 * The file is fetched only through the crawler's SSRF-guarded fetcher, small, with deadlines
 * and no redirect off the host. A verdict is kept in KV for a while (long when the key was
 * good, briefly when not, so an owner who just put the file up can ping again soon), so a
 * burst of pings fetches the file once.
 */
import { DomainError } from "../errors.ts";
import { botFetcher } from "../crawl/tuning.ts";
import { sha256Hex } from "../sites/keys.ts";
import type { Services } from "../services.ts";

/** How long a good key is believed without fetching its file again. */
export const GOOD_FOR_MS = 10 * 60_000;
/** How long a refused key stays refused without fetching its file again. */
export const BAD_FOR_MS = 30_000;
/** A key file is one key (at most 128 characters) and some white space. */
const MAX_KEY_FILE_BYTES = 1024;
const TIMEOUT_MS = 5_000;

/** One key file to check: the URL to read, the key it must hold, the host it must stay on. */
export interface KeyFileCheck {
  host: string;
  key: string;
  keyFile: string;
}

interface Verdict {
  ok: boolean;
  /** Until when (clock ms) it holds: KV may keep an expired key visible a while after expireIn. */
  until?: number;
  /** Why the key was refused, for the 403's message. */
  why?: string;
}

/** Resolves when the key file holds the key; else a 403 INDEXNOW_KEY_NOT_VALID saying why. */
export async function checkKeyFile(s: Services, check: KeyFileCheck): Promise<void> {
  const memo = ["indexnow_key", await sha256Hex(`${check.keyFile}\n${check.key}`)];
  let verdict = (await s.kv.get<Verdict>(memo)).value;
  if (!verdict || (verdict.until ?? 0) <= s.clock()) {
    const ms = (v: Verdict) => v.ok ? GOOD_FOR_MS : BAD_FOR_MS;
    const read = await readKeyFile(s, check);
    verdict = { ...read, until: s.clock() + ms(read) };
    await s.kv.set(memo, verdict, { expireIn: ms(read) });
  }
  if (!verdict.ok) {
    throw new DomainError(
      "INDEXNOW_KEY_NOT_VALID",
      `The key is not valid: ${verdict.why} Put a file at ${check.keyFile} whose text is the key.`,
      { param: "key" },
    );
  }
}

/** Fetches the key file and compares its text, trimmed, with the key. */
async function readKeyFile(s: Services, check: KeyFileCheck): Promise<Verdict> {
  const fetcher = botFetcher(s.crawl, { concurrency: 1 });
  const res = await fetcher.fetch(check.keyFile, {
    maxBytes: MAX_KEY_FILE_BYTES,
    maxRedirects: 2,
    headersTimeoutMs: TIMEOUT_MS,
    bodyTimeoutMs: TIMEOUT_MS,
    headers: { Accept: "text/plain, */*;q=0.5" },
    beforeHop: (u) => u.host === check.host ? null : "redirect_off_host",
  }).finally(() => fetcher.close());
  if (!res.ok) return { ok: false, why: `the key file could not be read (${res.reason}).` };
  if (res.status !== 200) return { ok: false, why: `the key file answered ${res.status}.` };
  const text = new TextDecoder().decode(res.body).trim();
  if (text !== check.key) return { ok: false, why: "the key file holds another text." };
  return { ok: true };
}
