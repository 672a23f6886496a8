/**
 * One file, one writer at a time. Every task on a file runs after the previous one settled, in arrival
 * order. Writes additionally group-commit: writes that arrive while the file is busy wait in a batch, and
 * the next turn hands the whole batch to one flush (one parse check, one file replace for all of them).
 */
export class FileQueue<J> {
  #tail: Promise<unknown> = Promise.resolve();
  #batch: J[] = [];
  #batchScheduled = false;
  readonly #flush: (jobs: J[]) => Promise<void>;

  constructor(flush: (jobs: J[]) => Promise<void>) {
    this.#flush = flush;
  }

  /** Run `task` exclusively, after everything queued before it. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => {});
    return result;
  }

  /**
   * Add a job to the pending batch. The job must carry its own way to answer its caller; `flush` is
   * expected to answer every job it is given, so nothing it throws is reported here.
   */
  submit(job: J): void {
    this.#batch.push(job);
    if (this.#batchScheduled) return;
    this.#batchScheduled = true;
    void this.run(async () => {
      this.#batchScheduled = false;
      const jobs = this.#batch;
      this.#batch = [];
      await this.#flush(jobs);
    });
  }

  /** Resolves when everything queued so far has settled. */
  idle(): Promise<void> {
    return this.#tail.then(() => {});
  }
}
