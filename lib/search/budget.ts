/**
 * Bytes the indexes of a process may hold (INDEX_MEMORY_MB), shared by its
 * SearchIndexes (pages and documents): each evicts its own least recently used to fit.
 */
export class IndexBudget {
  private members = new Set<() => number>();
  constructor(readonly bytes = Infinity) {}

  /** Counts what a member holds. */
  join(held: () => number) {
    this.members.add(held);
  }

  /** Bytes all members hold now. */
  used(): number {
    let n = 0;
    for (const held of this.members) n += held();
    return n;
  }
}
