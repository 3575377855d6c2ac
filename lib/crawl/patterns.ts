/**
 * Include and exclude patterns for a crawl's URLs. A pattern holding "://" is a
 * URLPattern over the whole URL (`https://example.com/docs/*`); any other is a glob
 * over the path and query: `*` matches within one path segment, `**` across
 * segments, everything else literally (`/docs/**`, `/_modules/**`; a leading `*`, as in
 * `*.pdf`, matches in any directory). A URL excluded now that an earlier crawl stored is removed.
 */

export type UrlFilter = (u: URL) => "excluded" | "not_included" | null;

/** At most this many patterns per list, each at most MAX_PATTERN characters. */
export const MAX_PATTERNS = 50;
export const MAX_PATTERN = 500;

/** Compiles one pattern; throws a readable Error when it cannot be compiled. */
export function compilePattern(pattern: string): (u: URL) => boolean {
  if (pattern.includes("://")) {
    let p: URLPattern;
    try {
      p = new URLPattern(pattern);
    } catch {
      throw new Error(`${JSON.stringify(pattern)} is not a valid URLPattern.`);
    }
    return (u) => p.test(u.href);
  }
  if (!pattern.startsWith("/") && !pattern.startsWith("*")) {
    throw new Error(
      `${JSON.stringify(pattern)} must start with "/" or "*" (or be a full URL pattern).`,
    );
  }
  const glob = compileGlob(
    pattern.startsWith("*") && !pattern.startsWith("**") ? "*" + pattern : pattern,
  );
  return (u) => glob(u.pathname + u.search) || (u.search !== "" && glob(u.pathname));
}

/** A literal character, `*` (any characters but "/") or `**` (any characters). */
type Token = string | typeof STAR | typeof GLOBSTAR;
const STAR = 1;
const GLOBSTAR = 2;

/**
 * A glob as a set-of-positions matcher (like robots.txt rules): time proportional to
 * text × pattern, never the exponential backtracking a regular expression could take.
 */
function compileGlob(pattern: string): (text: string) => boolean {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== "*") tokens.push(pattern[i]);
    else if (pattern[i + 1] === "*") {
      tokens.push(GLOBSTAR);
      while (pattern[i + 1] === "*") i++;
    } else tokens.push(STAR);
  }
  const m = tokens.length;
  const close = (set: Uint8Array) => {
    for (let j = 0; j < m; j++) if (set[j] && typeof tokens[j] === "number") set[j + 1] = 1;
  };
  return (text) => {
    let cur = new Uint8Array(m + 1);
    cur[0] = 1;
    close(cur);
    for (const c of text) {
      const next = new Uint8Array(m + 1);
      let any = false;
      for (let j = 0; j < m; j++) {
        if (!cur[j]) continue;
        const t = tokens[j];
        if (t === GLOBSTAR || (t === STAR && c !== "/")) next[j] = 1;
        else if (t === c) next[j + 1] = 1;
        else continue;
        any = true;
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

/** Why a pattern list is refused, or null. */
export function patternError(patterns: string[]): string | null {
  for (const p of patterns) {
    try {
      compilePattern(p);
    } catch (err) {
      return (err as Error).message;
    }
  }
  return null;
}
