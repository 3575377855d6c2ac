/**
 * When a live search box sends what is typed: 60 ms into a pause, and while typing on at least
 * every 300 ms, never two within 200 ms. Each question is one typing session, whose id rides on
 * its requests so the server counts the refinements as one search (docs/api.md, "Live search"): a
 * counted search buys 13 answers there (1 + 12 refinements). Past FAST_REQUESTS a session sends only after a 250 ms
 * pause, so a question typed without stopping costs at most 2 searches however long it is.
 */

/** Fewer characters than this send nothing. */
export const MIN_CHARS = 3;
/** [pause, min gap, max wait] in ms, before and after FAST_REQUESTS. */
const FAST = [60, 200, 300] as const;
const SLOW = [250, 700, Infinity] as const;
/**
 * Requests at the typing pace; then only on pauses. Two counted searches buy 26 answers: the
 * rest leave room for pauses a slow machine makes out of steady typing.
 */
const FAST_REQUESTS = 17;

/** A fresh typing-session id: 8 to 64 letters, digits, `_` or `-` (docs/api.md, live search). */
function sessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return "ts" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** One search box's typing session and its pacing. */
export class TypingSession {
  id = sessionId();
  #sentAt = 0;
  #typingSince = 0;
  #sent = 0;

  /** A new question begins (the box was emptied or cut below MIN_CHARS). */
  restart(): void {
    this.id = sessionId();
    this.#sentAt = this.#typingSince = this.#sent = 0;
  }

  /** Milliseconds from `now` (a keystroke) until what is typed should be sent. */
  delay(now: number): number {
    const [pause, gap, wait] = this.#sent < FAST_REQUESTS ? FAST : SLOW;
    this.#typingSince ||= now;
    return Math.max(this.#sentAt + gap, Math.min(now + pause, this.#typingSince + wait)) - now;
  }

  /** A request goes at `now`. */
  sending(now: number): void {
    this.#sentAt = now;
    this.#typingSince = 0;
    this.#sent++;
  }
}
