/** robots.txt per RFC 9309: group selection, longest-match rules, crawl-delay and sitemaps. */
import { compilingRules, type PathRule } from "./robots_match.ts";
import { drain, drainInSlices } from "../slices.ts";

export interface Robots {
  /** Whether the crawler may fetch a path (with its query), e.g. "/a/b?c=d". */
  isAllowed(pathWithQuery: string): boolean;
  /** Seconds between requests asked by the matched group (non-standard), or null. */
  crawlDelay: number | null;
  /** Every Sitemap: line, wherever it appears, as written. */
  sitemaps: string[];
}

/** RFC 9309 2.5: crawlers must parse at least 500 KiB; we stop there. */
export const MAX_ROBOTS_BYTES = 500 * 1024;

interface Rule {
  allow: boolean;
  pattern: string;
}

interface Group {
  agents: string[];
  rules: Rule[];
  crawlDelay: number | null;
}

/** RFC 9309 2.3.1: what a robots.txt fetch status means for the rest of the site. */
export function robotsForStatus(status: number): "parse" | "allow_all" | "disallow_all" {
  if (status >= 200 && status < 300) return "parse";
  // 429 is "come back later", not "there are no rules": treated like a server error, as Google does.
  if (status === 429) return "disallow_all";
  // 4xx means "unavailable", and so does a 3xx left over after too many redirects.
  if (status >= 300 && status < 500) return "allow_all";
  // 5xx, and 0 or anything else for "unreachable".
  return "disallow_all";
}

/** The leading product-token characters of a user-agent value, lowercased ("Bot/1.0" -> "bot"). */
function productToken(value: string): string {
  return (value.match(/^[A-Za-z_-]+/)?.[0] ?? "").toLowerCase();
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** A path normalizePath leaves as it is: printable ASCII without a percent sign. */
const PLAIN_PATH = /^[\x21-\x24\x26-\x7e]*$/;

/** RFC 9309 2.2.2: percent-encode non-ASCII and controls; decode encoded unreserved characters. */
function normalizePath(path: string): string {
  // Most paths and patterns are plain: each is normalized once per check or rule.
  if (PLAIN_PATH.test(path)) return path;
  let out = "";
  const bytes = new TextEncoder().encode(path);
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === 0x25 && i + 2 < bytes.length && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
      const hex = String.fromCharCode(bytes[i + 1], bytes[i + 2]).toUpperCase();
      const ch = String.fromCharCode(parseInt(hex, 16));
      out += UNRESERVED.test(ch) ? ch : `%${hex}`;
      i += 2;
    } else if (b <= 0x20 || b >= 0x7f) {
      out += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
    } else {
      out += String.fromCharCode(b);
    }
  }
  return out;
}

function isHex(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
}

/** Cuts the text at the size cap, on a line boundary so no rule is read half-written. */
function capText(text: string): string {
  if (text.length * 3 <= MAX_ROBOTS_BYTES) return text; // cannot exceed the cap in UTF-8
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= MAX_ROBOTS_BYTES) return text;
  const head = new TextDecoder().decode(bytes.subarray(0, MAX_ROBOTS_BYTES));
  const cut = head.search(/[\r\n][^\r\n]*$/);
  return cut >= 0 ? head.slice(0, cut) : "";
}

/** Splits robots.txt into groups and sitemap lines. */
function* parseGroups(text: string): Generator<void, { groups: Group[]; sitemaps: string[] }> {
  const groups: Group[] = [];
  const sitemaps: string[] = [];
  const seenSitemaps = new Set<string>();
  let current: Group | null = null;
  // A user-agent line after a rule starts a new group; consecutive ones share a group.
  let inAgents = false;
  for (const raw of capText(text.replace(/^\uFEFF/, "")).split(/\r\n|\r|\n/)) {
    yield;
    const hash = raw.indexOf("#");
    const line = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === "user-agent") {
      if (!inAgents || !current) {
        current = { agents: [], rules: [], crawlDelay: null };
        groups.push(current);
        inAgents = true;
      }
      current.agents.push(value === "*" ? "*" : productToken(value));
    } else if (key === "allow" || key === "disallow") {
      inAgents = false;
      // Rules before any user-agent belong to no group; an empty path is no rule at all.
      if (current && value) current.rules.push({ allow: key === "allow", pattern: value });
    } else if (key === "crawl-delay") {
      inAgents = false;
      const n = Number(value);
      if (current && value && Number.isFinite(n) && n >= 0 && current.crawlDelay === null) {
        current.crawlDelay = n;
      }
    } else if (key === "sitemap") {
      // Sitemap lines stand outside groups and do not end a user-agent run.
      if (value && !seenSitemaps.has(value)) {
        seenSitemaps.add(value);
        sitemaps.push(value);
      }
    }
  }
  return { groups, sitemaps };
}

/** Parses robots.txt for one product token (e.g. "SiteSearchBot"), per RFC 9309. */
export function parseRobots(text: string, userAgent: string): Robots {
  return drain(parsingRobots(text, userAgent));
}

/**
 * `parseRobots` in slices, for a file fetched while other sites are searched: 500 KB of
 * wildcard rules took 100-140 ms in one piece the first time.
 */
export function parseRobotsInSlices(text: string, userAgent: string): Promise<Robots> {
  return drainInSlices(parsingRobots(text, userAgent));
}

/** parseRobots' work, a step for each line read and each rule compiled. */
function* parsingRobots(text: string, userAgent: string): Generator<void, Robots> {
  const { groups, sitemaps } = yield* parseGroups(text);
  const token = productToken(userAgent);
  let chosen = token ? groups.filter((g) => g.agents.includes(token)) : [];
  if (chosen.length === 0) chosen = groups.filter((g) => g.agents.includes("*"));
  // Every group naming us is merged into one (RFC 9309 2.2.1).
  const rules: PathRule[] = [];
  for (const r of chosen.flatMap((g) => g.rules)) {
    rules.push({ allow: r.allow, pattern: normalizePath(r.pattern).replace(/\*+/g, "*") });
    yield;
  }
  const matcher = yield* compilingRules(rules);
  const crawlDelay = chosen.find((g) => g.crawlDelay !== null)?.crawlDelay ?? null;

  return {
    crawlDelay,
    sitemaps,
    isAllowed(pathWithQuery: string): boolean {
      let path = pathWithQuery.split("#")[0] || "/";
      if (!path.startsWith("/")) path = `/${path}`;
      if (path.split("?")[0] === "/robots.txt") return true;
      return matcher.allows(normalizePath(path));
    },
  };
}
