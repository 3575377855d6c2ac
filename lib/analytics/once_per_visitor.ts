/**
 * Evidence a suggestion is made from (a query left for another, a click on a result) counts
 * once per visitor address a day: session ids are the client's choice, so one client sending
 * a query pair or a click under many sessions is still one visitor, and cannot make the
 * owner's dashboard offer a synonym or a pin on its own. Kept in this instance's memory,
 * bounded per site (past it the oldest go, so one site's traffic never forgets another's).
 */

/** Evidence remembered per site at most. */
const MAX_PER_SITE = 10_000;

export class OncePerVisitor {
  /** Site → "visitor NUL evidence" → the day it was counted. */
  private sites = new Map<string, Map<string, string>>();

  /**
   * Whether `visitor` brings `evidence` for the first time on `day` (and notes it). Without a
   * visitor address (an in-process request, which no one outside can send) it always counts.
   */
  first(siteId: string, visitor: string | undefined, evidence: string, day: string): boolean {
    if (!visitor) return true;
    let seen = this.sites.get(siteId);
    if (!seen) this.sites.set(siteId, seen = new Map());
    const key = `${visitor}\u0000${evidence}`;
    if (seen.get(key) === day) return false;
    seen.delete(key); // to the back: the oldest go first
    seen.set(key, day);
    if (seen.size > MAX_PER_SITE) seen.delete(seen.keys().next().value!);
    return true;
  }
}
