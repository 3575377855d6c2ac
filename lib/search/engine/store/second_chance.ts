/**
 * How a process-wide cache lets go of what it keeps past a budget of characters: entries not
 * used for longest go first (nearly: one used since it was last passed over gets a second turn,
 * so a use moves nothing). packed_text.ts keeps page text this way, shown_rows.ts a row's
 * shown fields.
 */

/** An entry as its turns count it. */
export interface Turned {
  /** Characters it counts, fixed when it is added. */
  chars: number;
  /** Whether it was used since it was last passed over for letting go. */
  used: boolean;
  /** Counted, not let go of yet. */
  live: boolean;
}

/** The entries kept, in their turns to be let go of; `drop` forgets one where it is kept. */
export class Turns<E extends Turned> {
  #turns: E[] = [];
  #next = 0;
  #held = 0;

  constructor(private readonly maxChars: number, private readonly drop: (e: E) => void) {}

  /** Counts `e` in, and lets go of the entries past the budget. */
  add(e: E) {
    e.live = true;
    this.#turns.push(e);
    this.#held += e.chars;
    while (this.#held > this.maxChars && this.#next < this.#turns.length) {
      const t = this.#turns[this.#next++];
      if (t.used && t.live) {
        t.used = false;
        this.#turns.push(t);
      } else this.forget(t);
    }
    // The turns passed are let go of now and then, not one by one.
    if (this.#next > 1024 && this.#next * 2 > this.#turns.length) {
      [this.#turns, this.#next] = [this.#turns.slice(this.#next), 0];
    }
  }

  /** Lets go of `e` now (its turn, until passed, counts nothing). */
  forget(e: E) {
    if (!e.live) return;
    e.live = false;
    this.#held -= e.chars;
    this.drop(e);
  }
}
