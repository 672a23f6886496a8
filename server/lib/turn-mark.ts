/**
 * A fact that holds until the event loop's current turn ends. The requests read from the sockets in one turn
 * arrived together, so one check of something that changes under us (a file's stat, SQLite's `data_version`)
 * answers them all; the next turn checks again. `setImmediate` clears it once the turn's I/O callbacks have run.
 * (Set from a `setImmediate` callback, the mark lasts through the next turn's I/O: one turn at most.)
 */
export class TurnMark {
  #held = false;
  readonly #release = () => {
    this.#held = false;
  };

  get held(): boolean {
    return this.#held;
  }

  set(): void {
    if (this.#held) return;
    this.#held = true;
    setImmediate(this.#release);
  }

  /** What the mark stood for is no longer known: the next check is made again. */
  clear(): void {
    this.#held = false;
  }
}
