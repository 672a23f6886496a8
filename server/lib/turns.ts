/**
 * Turns over one thing (a spreadsheet: the one queue of its writes, spreadsheets/spreadsheet.ts): a task runs only
 * after the one before it settled, in arrival order. Writes submitted while a turn runs share the next turn,
 * handed over together: they reach the source as one batch, which a local file saves in one replace (group
 * commit, sources/workbook/workbook-file.ts).
 */
export class Turns<W> {
  #tail: Promise<unknown> = Promise.resolve();
  #waiting: W[] | null = null;
  /** Writes submitted whose turn has not settled yet. */
  #writes = 0;
  readonly #writeTurn: (writes: W[]) => Promise<void>;

  /** `writeTurn` answers every write it is given itself; what it throws is not reported here. */
  constructor(writeTurn: (writes: W[]) => Promise<void>) {
    this.#writeTurn = writeTurn;
  }

  /** Run `task` alone, after everything queued before it. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => {});
    return result;
  }

  /** Whether any write is waiting for its turn or in it. */
  get writing(): boolean {
    return this.#writes > 0;
  }

  /** Queue a write for the next write turn. */
  submit(write: W): void {
    this.#writes++;
    if (this.#waiting) {
      this.#waiting.push(write);
      return;
    }
    const writes = [write];
    this.#waiting = writes;
    const settled = () => {
      this.#writes -= writes.length;
    };
    void this.run(() => {
      this.#waiting = null;
      return this.#writeTurn(writes);
    }).then(settled, settled);
  }

  /** Resolves once everything queued so far has settled. */
  async idle(): Promise<void> {
    await this.#tail;
  }
}
