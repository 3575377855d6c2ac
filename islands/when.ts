/** Times as an owner reads them: "5 minutes ago", "in 10 minutes", a date. Browser-side only. */

const UNITS: [number, string][] = [[86_400_000, "day"], [3_600_000, "hour"], [60_000, "minute"]];

/** A span of time in the largest whole unit: "3 hours", "1 minute", "less than a minute". */
function span(ms: number): string {
  for (const [size, unit] of UNITS) {
    const n = Math.floor(ms / size);
    if (n >= 1) return `${n} ${unit}${n === 1 ? "" : "s"}`;
  }
  return "less than a minute";
}

/** "5 minutes ago", or "just now" for under a minute. */
export const ago = (iso: string, now = Date.now()) => {
  const ms = now - Date.parse(iso);
  return ms < 60_000 ? "just now" : `${span(ms)} ago`;
};

/** "in 10 minutes", or "any moment now" once due. */
export const fromNow = (iso: string, now = Date.now()) => {
  const ms = Date.parse(iso) - now;
  return ms <= 0 ? "any moment now" : `in ${span(ms)}`;
};

/** A date and time in the owner's time zone: "2 Dec 2026, 10:18". */
export const dateTime = (iso: string) =>
  new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });
