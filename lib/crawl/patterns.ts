/**
 * Include and exclude patterns for a crawl's URLs. A pattern holding "://" is a
 * URLPattern over the whole URL (`https://example.com/docs/*`, `https://*.example.com/:lang/*`);
 * any other is a glob over the path and query: `*` matches within one path segment, `**`
 * across segments, everything else literally (`/docs/**`, `/_modules/**`; a leading `*`, as in
 * `*.pdf`, matches in any directory). A URL excluded now that an earlier crawl stored is removed.
 *
 * Every pattern is matched by one set-of-positions automaton, in time proportional to the URL
 * times the pattern. A URLPattern is parsed by URLPattern but never matched by it: its regular
 * expressions backtrack, and a few wildcards (`/*a*a*a*b`) against a long crafted link stall
 * the process for minutes. So a URLPattern may hold literals, `*` and named groups (`:name`)
 * only; regular-expression groups, `{…}` groups and modifiers are refused.
 */

export type UrlFilter = (u: URL) => "excluded" | "not_included" | null;

/** At most this many patterns per list, each at most MAX_PATTERN characters. */
export const MAX_PATTERNS = 50;
export const MAX_PATTERN = 500;

/** Compiles one pattern; throws a readable Error when it cannot be compiled. */
export function compilePattern(pattern: string): (u: URL) => boolean {
  if (pattern.includes("://")) return compileUrlPattern(pattern);
  if (!pattern.startsWith("/") && !pattern.startsWith("*")) {
    throw new Error(
      `${JSON.stringify(pattern)} must start with "/" or "*" (or be a full URL pattern).`,
    );
  }
  const glob = compile(
    globTokens(pattern.startsWith("*") && !pattern.startsWith("**") ? "*" + pattern : pattern),
  );
  return (u) => glob(u.pathname + u.search) || (u.search !== "" && glob(u.pathname));
}

/**
 * A literal character; or a wildcard: any run of characters other than `stop` ("" stops at
 * nothing), of at least `min` of them (0 or 1).
 */
type Token = string | { stop: string; min: 0 | 1 };

function globTokens(pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== "*") tokens.push(pattern[i]);
    else if (pattern[i + 1] === "*") {
      tokens.push({ stop: "", min: 0 });
      while (pattern[i + 1] === "*") i++;
    } else tokens.push({ stop: "/", min: 0 });
  }
  return tokens;
}

/** The URL's parts a URLPattern names, each with the character a `:name` group stops at. */
const PARTS = [
  ["protocol", ""],
  ["username", ""],
  ["password", ""],
  ["hostname", "."],
  ["port", ""],
  ["pathname", "/"],
  ["search", ""],
  ["hash", ""],
] as const;

/** A URLPattern's parts, parsed by URLPattern, matched by our automaton. */
function compileUrlPattern(pattern: string): (u: URL) => boolean {
  let p: URLPattern;
  try {
    p = new URLPattern(pattern);
  } catch {
    throw new Error(`${JSON.stringify(pattern)} is not a valid URLPattern.`);
  }
  const parts = PARTS.map(([part, stop]) => {
    const tokens = urlPatternTokens(p[part], stop);
    if (!tokens) {
      throw new Error(
        `${
          JSON.stringify(pattern)
        } may hold only literal text, * and :name groups (no regular expressions, {} groups or modifiers), so that matching it stays fast.`,
      );
    }
    // A part that is only `*` matches anything: nothing to run.
    const any = tokens.length === 1 && typeof tokens[0] !== "string" && tokens[0].stop === "";
    return any ? null : { part, match: compile(tokens) };
  }).filter((x) => x !== null);
  return (u) =>
    parts.every(({ part, match }) => {
      const value = part === "protocol"
        ? u.protocol.slice(0, -1)
        : part === "search" || part === "hash"
        ? u[part].slice(1)
        : u[part];
      return match(value);
    });
}

/** One part of a URLPattern as tokens, or null when it holds more than literals, `*` and `:name`. */
function urlPatternTokens(part: string, stop: string): Token[] | null {
  const tokens: Token[] = [];
  for (let i = 0; i < part.length; i++) {
    const c = part[i];
    if (c === "\\") {
      if (i + 1 >= part.length) return null;
      tokens.push(part[++i]);
    } else if (c === "*") tokens.push({ stop: "", min: 0 });
    else if (c === ":") {
      let j = i + 1;
      while (j < part.length && /[\p{ID_Continue}$]/u.test(part[j])) j++;
      if (j === i + 1) return null;
      tokens.push({ stop, min: 1 });
      i = j - 1;
    } else if ("(){}?+".includes(c)) return null;
    else tokens.push(c);
  }
  return tokens;
}

/**
 * A set-of-positions matcher (like robots.txt rules): time proportional to text × pattern,
 * never the exponential backtracking a regular expression could take.
 */
function compile(tokens: Token[]): (text: string) => boolean {
  const m = tokens.length;
  // Positions reachable without reading: past wildcards that may match nothing.
  const close = (set: Uint8Array) => {
    for (let j = 0; j < m; j++) {
      const t = tokens[j];
      if (set[j] && typeof t !== "string" && t.min === 0) set[j + 1] = 1;
    }
  };
  // A wildcard of at least one character is entered at j and held at m + 1 + j once it has one.
  const size = 2 * m + 1;
  return (text) => {
    let cur = new Uint8Array(size);
    cur[0] = 1;
    close(cur);
    for (const c of text) {
      const next = new Uint8Array(size);
      let any = false;
      for (let j = 0; j < m; j++) {
        const t = tokens[j];
        if (typeof t === "string") {
          if (cur[j] && t === c) {
            next[j + 1] = 1;
            any = true;
          }
          continue;
        }
        if (c === t.stop) continue;
        if (t.min === 0) {
          if (cur[j]) {
            next[j] = 1;
            any = true;
          }
        } else if (cur[j] || cur[m + 1 + j]) {
          // One more character of the group: it may go on, or end here.
          next[m + 1 + j] = next[j + 1] = 1;
          any = true;
        }
      }
      if (!any) return false;
      close(next);
      cur = next;
    }
    return cur[m] === 1;
  };
}

/** The filter for lists of patterns: excluded wins; with includes, only matches pass. */
export function urlFilter(include: string[], exclude: string[]): UrlFilter | null {
  if (include.length === 0 && exclude.length === 0) return null;
  const inc = include.map(compilePattern);
  const exc = exclude.map(compilePattern);
  return (u) => {
    if (exc.some((m) => m(u))) return "excluded";
    if (inc.length && !inc.some((m) => m(u))) return "not_included";
    return null;
  };
}

/** Why a pattern list is refused (the first pattern refused, by its index), or null. */
export function patternError(patterns: string[]): { index: number; message: string } | null {
  for (const [index, p] of patterns.entries()) {
    try {
      compilePattern(p);
    } catch (err) {
      return { index, message: (err as Error).message };
    }
  }
  return null;
}
