/** Text as the service shows and compares it. */

/** Collapses runs of whitespace to single spaces and trims. */
export const squash = (s: string) => s.replace(/\s+/g, " ").trim();
