/**
 * How far a long read has come, as a fraction of the bytes it will go through, said to `report` only when it
 * has moved a step (a hundredth by default) and once at the end: a reader calls `add` for every chunk, and
 * whoever shows the fraction (a progress bar, a status line) is not called a thousand times a second.
 */
export type ProgressReport = (fraction: number) => void;

export class ByteProgress {
  readonly #total: number;
  readonly #report: ProgressReport;
  readonly #step: number;
  #done = 0;
  #said = 0;

  constructor(total: number, report: ProgressReport, step = 0.01) {
    this.#total = Math.max(1, total);
    this.#report = report;
    this.#step = step;
  }

  add(bytes: number): void {
    this.#done += bytes;
    const fraction = Math.min(1, this.#done / this.#total);
    if (fraction - this.#said >= this.#step) {
      this.#said = fraction;
      this.#report(fraction);
    }
  }

  /** All of it read (a part may have come in under the size it declared). */
  finish(): void {
    if (this.#said < 1) {
      this.#said = 1;
      this.#report(1);
    }
  }
}
