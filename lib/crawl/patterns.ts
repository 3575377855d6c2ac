/**
 * Include and exclude patterns for a crawl's URLs. A pattern holding "://" is a
 * URLPattern over the whole URL (`https://example.com/docs/*`); any other is a glob
 * over the path and query: `*` matches within one path segment, `**` across
 * segments, everything else literally (`/docs/**`, `/_modules/**`, `*.pdf`).
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
  const source = pattern.split(/(\*\*|\*)/).map((part) =>
    part === "**" ? ".*" : part === "*" ? "[^/]*" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")
  ).join("");
  // A leading "*" matches anywhere: "*.pdf" means any path ending in .pdf.
  const re = new RegExp(`^${pattern.startsWith("*") ? ".*" : ""}${source}$`);
  return (u) => re.test(u.pathname + u.search) || (u.search !== "" && re.test(u.pathname));
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
