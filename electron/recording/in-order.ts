/**
 * Releases items in sequence order although they finish in any order: frame i is indexed
 * only after frames 0…i−1 have been written or have failed.
 */
export class InOrder<T> {
  private readonly items = new Map<number, T>();
  private readonly outcome = new Map<number, boolean>();
  private next = 0;

  constructor(private readonly release: (item: T, ok: boolean, i: number) => void) {}

  /** Item `i` was started; it is released once it and everything before it have finished. */
  add(i: number, item: T) {
    this.items.set(i, item);
  }

  finish(i: number, ok: boolean) {
    if (!this.items.has(i)) return;
    this.outcome.set(i, ok);
    for (let o = this.outcome.get(this.next); o !== undefined; o = this.outcome.get(this.next)) {
      const item = this.items.get(this.next)!;
      this.items.delete(this.next);
      this.outcome.delete(this.next);
      this.release(item, o, this.next++);
    }
  }

  /** Everything still unfinished counts as failed (after the writers were shut down). */
  abandonRest() {
    for (const i of [...this.items.keys()].sort((a, b) => a - b)) if (!this.outcome.has(i)) this.finish(i, false);
  }
}
